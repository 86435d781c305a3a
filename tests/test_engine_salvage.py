"""Usable replies are not thrown away: the target function is salvaged from a whole module, a
helper, usage lines and imports; print mode strips the model's prints from a fix and accepts a
print version that only lost its docstring; a reply cut at the token limit is asked again, for
code only, with a larger budget. Pure checks on real source, then sessions on the REAL runner."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers.sumproj import FIXTURE, copy_project, make_request, prompt_text

from selfdebug.instrument import validate_model_prints
from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import run_session
from selfdebug.server.engine.answers.candidate import check_candidate
from selfdebug.server.engine.modes import STEP_MAX_TOKENS
from selfdebug.server.engine.target import locate
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.runner import ProjectRunner, RunnerSettings

SOURCE = (FIXTURE / "calc.py").read_text()
GOOD = (
    "def sum_to(n):\n    total = 0\n    for i in range(1, n + 1):\n        total += i\n"
    "    return total\n"
)
BUGGY_BODY = "    total = 0\n    for i in range(1, n):\n        total += i\n    return total\n"


def fenced(code: str) -> str:
    return f"Bug: the range stops one number early.\n```python\n{code}```\n"


def check(code: str, qualname: str = "sum_to", **options):
    return check_candidate(fenced(code), locate(SOURCE, qualname), SOURCE, **options)


# -- salvage ------------------------------------------------------------------------------------


def test_whole_module_reply_gives_the_fixed_function_only():
    module = SOURCE.replace("range(1, n)", "range(1, n + 1)") + (
        '\n\nif __name__ == "__main__":\n    print(sum_to(3))\n'
    )
    candidate = check(module)
    assert candidate.ok, candidate.problem
    assert candidate.code is not None and candidate.code.startswith("def sum_to(n):")
    assert "range(1, n + 1)" in candidate.code and "class Counter" not in candidate.code
    # the rest of the file is untouched: only the range line differs
    changed = [
        (a, b)
        for a, b in zip(SOURCE.splitlines(), candidate.new_source.splitlines(), strict=True)
        if a != b
    ]
    assert changed == [("    for i in range(1, n):", "    for i in range(1, n + 1):")]
    # another function rewritten on the side, but not used by the target: left out, not refused
    also = check(module.replace("values[1:]", "values"))
    assert also.ok and also.code == candidate.code
    assert "dropped the changed class `Counter`: it is not used" in also.notes


@pytest.mark.parametrize(
    "usage",
    ["print(sum_to(3))\n", "assert sum_to(3) == 6\n", "xs = [1, 2]\nfor x in xs:\n    print(x)\n"],
)
def test_usage_lines_after_the_function_are_dropped(usage):
    candidate = check(GOOD + "\n\n" + usage)
    assert candidate.ok, candidate.problem
    assert candidate.code == GOOD
    assert any("dropped top-level" in note for note in candidate.notes)


def test_unused_import_is_dropped_and_a_used_stdlib_import_moves_into_the_function():
    unused = check("import os\n\n" + GOOD)
    assert unused.ok and unused.code == GOOD
    formula = "def sum_to(n):\n    return math.comb(n + 1, 2) if n > 0 else 0\n"
    used = check("import math\n\n\n" + formula)
    assert used.ok, used.problem
    assert used.code == (
        "def sum_to(n):\n    import math\n    return math.comb(n + 1, 2) if n > 0 else 0\n"
    )
    namespace: dict = {}
    exec(used.code, namespace)  # the moved import really makes it work
    assert namespace["sum_to"](3) == 6 and namespace["sum_to"](-2) == 0


def test_import_kept_after_the_docstring_and_a_foreign_import_is_refused():
    with_doc = (
        'from math import comb\n\ndef sum_to(n):\n    """Doc."""\n'
        "    return comb(n + 1, 2) if n > 0 else 0\n"
    )
    candidate = check(with_doc)
    assert candidate.ok, candidate.problem
    assert candidate.code.splitlines()[1:3] == ['    """Doc."""', "    from math import comb"]
    foreign = check(
        "import numpy as np\n\ndef sum_to(n):\n    return int(np.arange(n + 1).sum())\n"
    )
    assert not foreign.ok
    assert "`import numpy as np` is neither in the standard library" in foreign.problem


def test_a_new_helper_becomes_a_nested_function():
    reply = (
        "def triangle(k):\n    return k * (k + 1) // 2\n\n\n"
        "def sum_to(n):\n    return triangle(n) if n > 0 else 0\n\n\nprint(sum_to(3))\n"
    )
    candidate = check(reply)
    assert candidate.ok, candidate.problem
    assert candidate.code == (
        "def sum_to(n):\n    def triangle(k):\n        return k * (k + 1) // 2\n\n"
        "    return triangle(n) if n > 0 else 0\n"
    )
    tree = ast.parse(candidate.new_source)
    assert [n.name for n in tree.body if isinstance(n, ast.FunctionDef)] == ["sum_to"]


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (
            SOURCE[SOURCE.index("class Counter") :].replace("values[1:]", "values")
            + "\n\ndef sum_to(n):\n    return Counter().add_all(range(1, n + 1))\n",
            "also changes the class `Counter`, which `sum_to` uses",
        ),
        (
            "LIMIT = 1\n\ndef sum_to(n):\n    return sum(range(LIMIT, n + 1))\n",
            "adds module-level `LIMIT`",
        ),
        ("def helper(n):\n    return n\n", "must define the function `sum_to`"),
    ],
)
def test_what_would_change_the_module_is_refused_with_the_reason(reply, problem):
    candidate = check(reply)
    assert not candidate.ok
    assert problem in candidate.problem


def test_a_method_inside_its_unchanged_class_is_taken_out():
    fixed = SOURCE[SOURCE.index("class Counter") :].replace("values[1:]", "values")
    candidate = check(fixed, "Counter.add_all")
    assert candidate.ok, candidate.problem
    assert candidate.code == (
        "def add_all(self, values):\n    for value in values:\n        self.count += value\n"
        "    return self.count\n"
    )


# -- print mode ---------------------------------------------------------------------------------


def test_print_mode_strips_the_models_prints_from_a_fix():
    with_prints = (
        "def sum_to(n):\n    total = 0\n    for i in range(1, n + 1):\n        print(i)\n"
        "        total += i\n        print('total', total)\n    return total\n"
    )
    candidate = check(with_prints, strip_new_prints=True)
    assert candidate.ok, candidate.problem
    assert candidate.code == GOOD
    assert "removed 2 debugging print(s) from the fix" in candidate.notes
    alone = (
        "def sum_to(n):\n    if n < 0:\n        print('negative')\n    return n * (n + 1) // 2\n"
    )
    stripped = check(alone, strip_new_prints=True)
    assert stripped.code is not None and "        pass\n" in stripped.code


def test_print_version_is_validated_by_syntax_ignoring_docstring_and_comments():
    original = locate(SOURCE, "sum_to").code
    model = (
        "def sum_to(n):\n    total = 0  # running sum\n    for i in range(1, n):\n"
        "        print('i', i, total)\n        total += i\n    return total\n"
    )
    validation = validate_model_prints(original, model, first_line=5)
    assert validation.ok, validation.reason
    assert validation.added == 1
    # logged at the original `for` line (file line 5 + 3 = 8), the statement the print follows
    assert "print_(0, 8, 'i', i, total)" in validation.instrumented
    changed = model.replace("range(1, n)", "range(0, n)")
    assert not validate_model_prints(original, changed, first_line=5).ok


# -- sessions on the real runner ----------------------------------------------------------------


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory, "salvage")


@pytest.fixture(scope="module")
def runner(project):
    with ProjectRunner(project, RunnerSettings(test_timeout_s=10)) as shared:
        yield shared


def test_a_reply_with_a_helper_and_usage_fixes_in_the_first_turn(project, runner):
    reply = (
        "import math\n\n\ndef triangle(k):\n    return math.comb(k + 1, 2)\n\n\n"
        "def sum_to(n):\n    return triangle(n) if n > 0 else 0\n\n\n"
        "print(sum_to(3))\nassert sum_to(1) == 1\n"
    )
    result = run_session(make_request(project), ScriptedBackend([fenced(reply)]), runner=runner)
    assert result.stop_reason == "passed" and result.fixed_at_turn == 1
    assert "+    import math\n+    def triangle(k):" in result.diff
    assert "print(sum_to(3))" not in result.diff


def test_print_mode_fix_with_prints_is_used_without_them(project, runner):
    with_print = BUGGY_BODY.replace("    return", "    print(total)\n    return")
    prints = "```python\ndef sum_to(n):\n" + with_print + "```\n"
    fix_with_print = GOOD.replace("    return total", "    print('total', total)\n    return total")
    backend = ScriptedBackend([prints, fenced(fix_with_print)])
    result = run_session(make_request(project, mode="print", max_turns=1), backend, runner=runner)
    assert result.stop_reason == "passed", result.error
    assert result.fixed_function == GOOD


def test_print_mode_uses_a_print_version_that_dropped_the_docstring(project, runner):
    body = BUGGY_BODY.replace(
        "        total += i", '        total += i  # add\n        print("step", i, total)'
    )
    no_docstring = "```python\ndef sum_to(n):\n" + body + "```\n"  # docstring dropped
    backend = ScriptedBackend([no_docstring, fenced(GOOD)])
    result = run_session(make_request(project, mode="print", max_turns=1), backend, runner=runner)
    assert result.stop_reason == "passed", result.error
    second = prompt_text(backend, 1)
    assert "step 1 1" in second and "step 2 3" in second  # the prints really ran


def test_a_reply_cut_at_the_token_limit_is_asked_again_for_code_only(project, runner, tmp_path):
    cut = "Bug: the loop stops early.\n```python\ndef sum_to(n):\n    total = 0\n"  # parses!
    backend = ScriptedBackend([cut, fenced(GOOD)], finish_reasons=["length", "stop"])
    transcript = tmp_path / "cut.jsonl"
    result = run_session(
        make_request(project, mode="explain", transcript_path=transcript), backend, runner=runner
    )
    assert result.stop_reason == "passed" and result.fixed_at_turn == 1
    first, second = backend.requests
    assert first.max_tokens == STEP_MAX_TOKENS["fix_explain"]
    assert second.max_tokens == 2 * first.max_tokens
    again = prompt_text(backend, 1)
    assert "cut off at the length limit" in again and "Answer with the code only" in again
    assert "line by line" not in again  # no reasoning asked for this time
    events = read_transcript(transcript)
    assert any(e["event"] == "retry_cut" for e in events)


def test_a_cut_reply_whose_only_closed_block_is_the_original_is_asked_again():
    original = locate(SOURCE, "sum_to").code
    quoting = f"Explanation: the function\n```python\n{original}```\nline 1 defines sum_to, li"
    candidate = check_candidate(quoting, locate(SOURCE, "sum_to"), SOURCE, truncated=True)
    assert candidate.cut and not candidate.ok
    assert "cut off at the length limit" in candidate.problem
    finished = check_candidate(fenced(GOOD), locate(SOURCE, "sum_to"), SOURCE, truncated=True)
    assert finished.ok and not finished.cut  # the fix block closed before the limit: used


def test_default_answer_budget_fits_the_steps_reasoning(project, runner):
    for mode, step in (("ut", "fix_ut"), ("trace", "fix_trace")):
        backend = ScriptedBackend([fenced(GOOD)])
        run_session(make_request(project, mode=mode), backend, runner=runner)
        assert backend.requests[0].max_tokens == STEP_MAX_TOKENS[step]
    assert STEP_MAX_TOKENS["fix_trace"] > STEP_MAX_TOKENS["fix_ut"] > 512  # 512 cut answers
    explicit = ScriptedBackend([fenced(GOOD)])
    run_session(make_request(project, max_tokens=300), explicit, runner=runner)
    assert explicit.requests[0].max_tokens == 300


def test_an_explanation_without_code_is_asked_again_for_code_only(project, runner, tmp_path):
    """Qwen2.5-Coder-0.5B answered `Bug: ...` and stopped in 23 of 24 `none` sessions on
    QuixBugs dev: the one turn of `none` must still get its code."""
    prose = "Bug: the loop stops one short of n."
    backend = ScriptedBackend([prose, fenced(GOOD)])
    transcript = tmp_path / "no_code.jsonl"
    result = run_session(
        make_request(project, mode="none", transcript_path=transcript), backend, runner=runner
    )
    assert result.stop_reason == "passed" and result.fixed_at_turn == 1, result.error
    first, second = backend.requests
    assert second.max_tokens == first.max_tokens  # not cut: the same budget
    again = prompt_text(backend, 1)
    assert "your answer gave no code" in again and "Answer with the code only" in again
    events = read_transcript(transcript)
    assert [e["event"] for e in events if e["event"].startswith("retry")] == ["retry_no_code"]


def test_an_explanation_without_code_is_asked_again_only_once(project, runner):
    backend = ScriptedBackend(["Bug: off by one.", "Still no code, sorry."])
    result = run_session(make_request(project, mode="none"), backend, runner=runner)
    assert result.stop_reason != "passed" and len(backend.requests) == 2
