"""A candidate that writes a failing test's expected value into the code is refused, from the
search or the model (issue 37 item 1): unit rules of overfitting.py, then real sessions (the
real runner, a scripted model) on functions whose bug is away from the line that makes the
output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.evidence import Evidence
from selfdebug.server.engine.overfitting import expected_values
from selfdebug.server.engine.search.edits import generate_edits
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.engine.types import Budget, Reporting, TargetSpec
from selfdebug.server.runner import results

# The bug is the separator the split uses (line 2), far from the line that builds the output.
INITIALS = """def initials(name):
    parts = name.split(",")
    out = ""
    for part in parts:
        out += part[:1].upper() + "."
    return out
"""
INITIALS_TESTS = """from names import initials


def test_two_names():
    assert initials("john doe") == "J.D."


def test_one_name():
    assert initials("ann") == "A."
"""
FIXED_INITIALS = INITIALS.replace('split(",")', "split()")

# The bug is the slice that skips the first price (line 4), away from the line that returns.
TOTAL = """def total_cents(prices):
    cents = [round(p * 100) for p in prices]
    total = 0
    for c in cents[1:]:
        total += c
    return total
"""
TOTAL_TESTS = """from total import total_cents


def test_two_prices():
    assert total_cents([1.5, 2.25]) == 375


def test_no_price():
    assert total_cents([]) == 0
"""
PROJECTS = {"names": (INITIALS, INITIALS_TESTS), "total": (TOTAL, TOTAL_TESTS)}


def _failing(left: str, right: str, op: str = "==") -> Evidence:
    failed = results.TestResult(
        "t.py::t", "failed", assert_op=op, assert_left=left, assert_right=right, longrepr="x"
    )
    run = results.RunResult([failed, results.TestResult("t.py::ok", "passed")], "rlimits", 0.1)
    return Evidence.of(run)


def test_the_expected_text_written_into_the_code_is_refused():
    values = expected_values(_failing("'J.'", "'J.D.'"), INITIALS)
    for overfit in (
        INITIALS.replace("    return out\n", "    return out or 'J.D.'\n"),
        INITIALS.replace('name.split(",")', "name.split(',') or 'J.D.'"),
        INITIALS.replace('"."', "'D.'"),  # a piece of the expected text
    ):
        why = values.refusal(overfit, INITIALS)
        assert why.startswith("writes the test's expected text "), overfit
    assert "'J.D.'" in values.refusal(INITIALS.replace("return out", "return 'J.D.'"), INITIALS)
    assert values.refusal(FIXED_INITIALS, INITIALS) == ""  # the real fix writes nothing new
    # one character of the expected text is no evidence of copying
    assert values.refusal(INITIALS.replace('"."', '"D"'), INITIALS) == ""


def test_the_expected_number_written_into_the_code_is_refused():
    code = (
        "def style(italic):\n"
        "    if italic is not None:\n"
        "        return f'[{5 if italic else 23}m'\n"
    )
    values = expected_values(_failing("'[23m'", "'[3m'"), code)
    copied = code.replace("5 if", "3 if")  # a number the expected string shows
    assert values.refusal(copied, code) == "writes the test's expected value 3 into the code"
    values = expected_values(_failing("11", "12"), "def f(x):\n    return x + 1\n")
    assert "value 12" in values.refusal("def f(x):\n    return 12\n", "def f(x):\n    return x\n")
    # -1, 0, 1 are every program's constants, never the test's
    assert values.refusal("def f(x):\n    return x + 1\n", "def f(x):\n    return x\n") == ""


def test_literals_the_module_or_a_passing_test_writes_are_allowed():
    module = 'SEPARATOR = "J.D."\n\n' + INITIALS
    assert (
        expected_values(_failing("'J.'", "'J.D.'"), module).refusal(
            INITIALS.replace("return out", "return out or 'J.D.'"), INITIALS
        )
        == ""
    )
    passing = ['def test_other():\n    assert initials("x", "J.D.") == "X."\n']
    values = expected_values(_failing("'J.'", "'J.D.'"), INITIALS, passing)
    assert values.refusal(INITIALS.replace("return out", "return out or 'J.D.'"), INITIALS) == ""


def test_no_failing_comparison_refuses_nothing():
    passed = results.RunResult([results.TestResult("t.py::ok", "passed")], "rlimits", 0.1)
    values = expected_values(Evidence.of(passed), INITIALS)
    assert values.refusal(INITIALS.replace("return out", "return 'J.D.'"), INITIALS) == ""


def test_containers_and_unittest_messages_give_their_values():
    values = expected_values(_failing("[1, 2]", "[17, 'abc']"), "def f():\n    return []\n")
    assert "17" in values.refusal("def f():\n    return [17]\n", "def f():\n    return []\n")
    unittest_failure = results.TestResult(
        "t.py::T::t", "failed", message="AssertionError: 'Ab' != 'Abc'", longrepr="x"
    )
    values = expected_values(
        Evidence.of(results.RunResult([unittest_failure], "rlimits", 0.1)),
        "def f(s):\n    return s\n",
    )
    assert values.refusal("def f(s):\n    return s + 'c' or 'Abc'\n", "def f(s):\n    return s\n")


def _project(
    root: Path, module: str = "names", code: str = INITIALS, tests: str = INITIALS_TESTS
) -> Path:
    root.mkdir()
    (root / f"{module}.py").write_text(code, encoding="utf-8")
    (root / f"test_{module}.py").write_text(tests, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("module", "qualname", "expected", "fixes"),
    [("names", "initials", "J.D", False), ("total", "total_cents", "375", True)],
)
def test_no_search_candidate_writes_the_expected_value(tmp_path, module, qualname, expected, fixes):
    """The expected text `J.D.`, and the expected number 375, are written by no candidate;
    the search finds the slice (`cents[1:]`), not the split's separator (no class makes
    `split()` of `split(",")`)."""
    code, tests = PROJECTS[module]
    root = _project(tmp_path / module, module, code, tests)
    every_line = {n: 0 for n in range(2, 7)}
    assert not [e for e in generate_edits(code, 1, every_line, limit=3000) if expected in e.code]
    first, second = re.findall(r"def (test_\w+)", tests)
    result = run_session(
        DebugRequest(
            TargetSpec(
                file=root / f"{module}.py",
                qualname=qualname,
                project_root=root,
                tests=[f"test_{module}.py::{first}"],
                wider_tests=[f"test_{module}.py::{second}"],
            ),
            mode="search",
        ),
        ScriptedBackend(["never asked"]),
    )
    assert result.success == fixes and expected not in (result.fixed_file or "")


def test_a_model_candidate_that_writes_the_expected_text_is_refused(tmp_path):
    root = _project(tmp_path / "names")
    transcript = tmp_path / "t.jsonl"
    overfit = INITIALS.replace("    return out\n", "    return out if ',' in name else 'J.D.'\n")
    reply = f"The name has no comma.\n```python\n{overfit}```\n"
    result = run_session(
        DebugRequest(
            TargetSpec(
                file=root / "names.py",
                qualname="initials",
                project_root=root,
                tests=["test_names.py::test_two_names"],
            ),
            mode="ut",
            budget=Budget(max_turns=1),
            reporting=Reporting(transcript_path=transcript),
        ),
        ScriptedBackend([reply]),
    )
    assert not result.success
    problems = [e["problem"] for e in read_transcript(transcript) if e["event"] == "candidate"]
    assert problems == ["writes the test's expected text 'J.D.' into the code"]
