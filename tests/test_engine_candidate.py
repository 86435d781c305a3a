"""Candidate extraction and structural checks, the function's place in its file, the vote and
the feedback text: the engine's pure parts, on real source text."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from selfdebug.server.engine.answers.candidate import (
    check_candidate,
    extract_code,
    extract_explanation,
    same_code,
)
from selfdebug.server.engine.answers.vote import Scored, choose
from selfdebug.server.engine.diffing import unified_diff
from selfdebug.server.engine.evidence import FailingTest
from selfdebug.server.engine.feedback import describe_failure, format_log, source_of_test
from selfdebug.server.engine.target import TargetNotFound, locate
from selfdebug.server.runner import results

FIXTURE = Path(__file__).parent / "fixtures" / "engine" / "sumproj"
SOURCE = (FIXTURE / "calc.py").read_text()
GOOD = (
    "def sum_to(n):\n    total = 0\n    for i in range(1, n + 1):\n        total += i\n"
    "    return total\n"
)


def fenced(code: str, before: str = "Bug: off by one.\n") -> str:
    return f"{before}```python\n{code}```\n"


def test_locate_function_and_method():
    function = locate(SOURCE, "sum_to")
    assert function.code.startswith("def sum_to(n):")
    assert function.indent == "" and function.class_name == ""
    method = locate(SOURCE, "Counter.add_all")
    assert method.class_name == "Counter" and method.indent == "    "
    assert method.code.startswith("def add_all(self, values):")  # dedented
    with pytest.raises(TargetNotFound):
        locate(SOURCE, "Counter.nothing")
    with pytest.raises(TargetNotFound):
        locate("def broken(:\n", "broken")


def test_good_candidate_replaces_only_the_function():
    target = locate(SOURCE, "sum_to")
    candidate = check_candidate(fenced(GOOD), target, SOURCE)
    assert candidate.ok, candidate.problem
    assert candidate.explanation == "off by one."
    new_lines, old_lines = candidate.new_source.splitlines(), SOURCE.splitlines()
    tail = len(old_lines) - target.end_line
    assert new_lines[: target.start_line] == old_lines[: target.start_line]
    assert new_lines[-tail:] == old_lines[-tail:]
    assert new_lines[target.start_line : len(new_lines) - tail] == GOOD.splitlines()
    assert "class Counter:" in candidate.new_source  # the rest of the file is kept
    ast.parse(candidate.new_source)


def test_the_lines_a_fix_keeps_are_written_back_byte_for_byte():
    """The function's code is dedented, which empties whitespace-only lines (a docstring's
    too); the lines a fix leaves alone go back as the file had them, trailing spaces and all,
    so the diff shows only the fix."""
    source = (
        "class Words:\n    def split(self, s):  \n        \"\"\"Split `s`.\n        \n"
        "        Commas too.   \n        \"\"\"\n        return s.split(',')\n"
    )  # fmt: skip
    target = locate(source, "Words.split")
    fixed = target.code.replace("s.split(',')", "s.replace(',', ' ').split()")
    new_source = target.replace_in(source, fixed)
    assert unified_diff(source, new_source, "w.py").count("\n-") == 1  # the one line
    old_lines, new_lines = source.splitlines(), new_source.splitlines()
    assert new_lines[:-1] == old_lines[:-1]
    assert new_lines[-1] == "        return s.replace(',', ' ').split()"
    added = target.replace_in(source, fixed.replace("    return", "    s = s.strip()\n    return"))
    assert added.splitlines()[:-2] == old_lines[:-1] and added.endswith(".split()\n")
    assert target.replace_in(source.rstrip("\n"), fixed).endswith(".split()")  # no final newline
    rewritten = "\n".join(line.rstrip() for line in fixed.splitlines())  # as a model writes it
    assert target.replace_in(source, rewritten) == new_source


def test_a_method_whose_docstring_wraps_to_column_0_is_found_and_written_back():
    """A docstring line left of the method's indentation kept textwrap.dedent from taking
    anything off, and the method did not parse (python-semver's `VersionInfo.parse`)."""
    source = (
        "class Version:\n    @staticmethod\n    def parse(text):\n        \"\"\"Parse.\n\n"
        "        >>> Version.parse('1.2.3-pre.2+build.4') == Version(1, 2, 3,\n"
        "prerelease='pre.2', build='build.4')\n        \"\"\"\n        return text.split('.')\n"
    )  # fmt: skip
    target = locate(source, "Version.parse")
    assert target.code.startswith("@staticmethod\ndef parse(text):\n")
    ast.parse(target.code)
    assert "\nprerelease='pre.2', build='build.4')\n" in target.code  # the string as it is
    fixed = target.code.replace("split('.')", "split('-')")
    new_source = target.replace_in(source, fixed)
    assert new_source == source.replace("split('.')", "split('-')")
    assert target.replace_in(source, target.code) == source


def test_method_candidate_is_reindented_with_or_without_its_class():
    target = locate(SOURCE, "Counter.add_all")
    method = (
        "def add_all(self, values):\n    for value in values:\n        self.count += value\n"
        "    return self.count\n"
    )
    bare = check_candidate(fenced(method), target, SOURCE)
    wrapped = check_candidate(
        fenced("class Counter:\n" + "".join("    " + line + "\n" for line in method.splitlines())),
        target,
        SOURCE,
    )
    for candidate in (bare, wrapped):
        assert candidate.ok, candidate.problem
        assert (
            "    def add_all(self, values):\n        for value in values:\n" in candidate.new_source
        )
        tree = ast.parse(candidate.new_source)
        counter = next(n for n in tree.body if isinstance(n, ast.ClassDef))
        assert [f.name for f in counter.body] == ["__init__", "add_all"]


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("I think the loop is wrong.", "holds no code"),
        (fenced("def sum_to(n):\n    return (\n"), "does not parse"),
        (fenced("def other(n):\n    return n\n"), "must define the function `sum_to`"),
        (
            fenced("import numpy\n\n" + GOOD.replace("total = 0", "total = numpy.int64(0)")),
            "neither in the standard library",
        ),
        (
            fenced("TOTAL = 0\n\n" + GOOD.replace("total = 0", "total = TOTAL")),
            "adds module-level `TOTAL`",
        ),
        (fenced(GOOD.replace("total = 0", "total = 0  # \u202e")), "bidirectional"),
        (fenced(GOOD.replace("total = 0", "tot\u200bal = 0")), "invisible"),
    ],
)
def test_bad_candidates_are_rejected_with_a_reason(reply, problem):
    candidate = check_candidate(reply, locate(SOURCE, "sum_to"), SOURCE)
    assert not candidate.ok
    assert problem in candidate.problem


def test_probe_detector_rejects_our_probes():
    marker = "__selfdebug_probe__"
    candidate = check_candidate(
        fenced(GOOD.replace("total = 0", f"total = 0\n    {marker}('p1')")),
        locate(SOURCE, "sum_to"),
        SOURCE,
        contains_probes=lambda code: marker in code,
    )
    assert "probes" in candidate.problem


def test_new_risky_calls_are_flagged_not_rejected():
    code = GOOD.replace("    total = 0\n", "    import subprocess\n    total = 0\n")
    candidate = check_candidate(fenced(code), locate(SOURCE, "sum_to"), SOURCE)
    assert candidate.ok
    assert candidate.warnings == ["the candidate newly uses subprocess"]


def test_completion_reply_is_cut_at_the_fence_and_trailing_text():
    reply = GOOD[len("") :] + "```\n### Bug\nThe range misses n.\n"
    assert extract_code(reply, "sum_to", opened_fence=True) == GOOD
    assert extract_explanation(reply, opened_fence=True) == "The range misses n."
    rambling = GOOD + "\nThis fixes it.\ndef test_x():\n    pass\n"
    assert extract_code(rambling, "sum_to", opened_fence=True) == GOOD


def test_completion_reply_after_a_prefilled_header_gets_the_header_back():
    body = GOOD[len("def sum_to(n):\n") :]
    code = extract_code(body + "```\n", "sum_to", opened_fence=True, code_prefix="def sum_to(n):\n")
    assert code == GOOD
    # a model that writes the header again is not given a second one
    again = extract_code(
        GOOD + "```\n", "sum_to", opened_fence=True, code_prefix="def sum_to(n):\n"
    )
    assert again == GOOD


def test_fenced_block_defining_the_function_wins():
    reply = "Example:\n```python\nprint(1)\n```\nFix:\n```python\n" + GOOD + "```"
    assert extract_code(reply, "sum_to", opened_fence=False) == GOOD


def _run(*outcomes: tuple[str, str, str | None]) -> results.RunResult:
    return results.RunResult(
        tests=[
            results.TestResult(nodeid=n, outcome=o, assert_left=left) for n, o, left in outcomes
        ],  # type: ignore[arg-type]
        isolation="rlimits",
        duration=0.1,
    )


def test_vote_prefers_most_passed_then_the_largest_behaviour_group():
    lone = _run(("a", "passed", None), ("b", "failed", "3"))
    same_1 = _run(("a", "failed", "0"), ("b", "passed", None))
    same_2 = _run(("a", "failed", "0"), ("b", "passed", None))
    picked = choose([Scored(0, lone), Scored(1, same_1), Scored(2, same_2)])
    assert picked is not None and picked.index == 1
    better = _run(("a", "passed", None), ("b", "passed", None))
    picked = choose([Scored(0, lone), Scored(1, same_1), Scored(2, better)])
    assert picked is not None and picked.index == 2
    assert choose([]) is None


def test_failure_text_has_got_and_expected_and_the_raising_line(tmp_path):
    target = locate(SOURCE, "sum_to")
    calc = FIXTURE / "calc.py"
    failed = results.TestResult(
        nodeid="check_calc.py::test_sum_to_three",
        outcome="failed",
        exc_type="AssertionError",
        assert_left="3",
        assert_right="6",
        assert_op="==",
        frames=[
            results.Frame(
                str(FIXTURE / "check_calc.py"), 5, "test_sum_to_three", "assert sum_to(3) == 6"
            )
        ],
    )
    text = describe_failure(FailingTest.of(failed), target, calc)
    assert "`assert sum_to(3) == 6` got 3, expected 6" in text
    raised = results.TestResult(
        nodeid="check_calc.py::test_x",
        outcome="failed",
        exc_type="TypeError",
        message="bad operand",
        frames=[results.Frame(str(calc), target.start_line + 4, "sum_to", "total += i")],
    )
    assert "raised at line 4 of `sum_to`: `total += i`" in describe_failure(
        FailingTest.of(raised), target, calc
    )


def test_test_source_is_read_from_the_test_file():
    source = source_of_test(FIXTURE, "check_calc.py::test_sum_to_three")
    assert source == "def test_sum_to_three():\n    assert sum_to(3) == 6"
    assert source_of_test(FIXTURE, "check_calc.py::nope") == ""


def test_log_is_relative_to_the_function_and_truncated_with_a_marker():
    records = [
        results.ProbeRecord(probe=f"p{i}", line=11, kind="loop", values={"i": str(i)})
        for i in range(50)
    ]
    log = format_log(records, first_line_0based=3, limit_chars=80)
    lines = log.splitlines()
    assert lines[0] == "line 8: i=0" and lines[-1] == "line 8: i=49"  # head and tail
    assert any(line.startswith("...[") and "lines left out]" in line for line in lines)
    printed = [results.ProbeRecord(probe="m", line=6, kind="print", values={}, text="total 3\n")]
    assert format_log(printed, 3, 1000) == "line 3: total 3"
    code = "def f(n):\n    total = n\n    print(total)\n    return total\n"
    quoted = format_log(printed, 3, 1000, code=code)
    assert quoted == "line 3 `print(total)`: total 3"  # the source line, as the model sees it


def test_unified_diff_names_the_file():
    diff = unified_diff("a\nb\n", "a\nc\n", "pkg/mod.py")
    assert diff.startswith("--- a/pkg/mod.py\n+++ b/pkg/mod.py\n")
    assert "-b\n+c\n" in diff


def test_same_code_ignores_formatting_comments_and_docstrings():
    original = locate(SOURCE, "sum_to").code
    reformatted = GOOD.replace("n + 1", "n+1")
    assert same_code(GOOD, reformatted + "# done\n")
    assert same_code(
        original, original.replace('    """Return 1 + 2 + ... + n (0 when n <= 0)."""\n', "")
    )
    assert not same_code(original, GOOD)


# A function documented for mkdocs: its docstring holds a Markdown example block. The reply's
# own fence must not end at the docstring's inner fence (finding 4 of issue 23).
DOCUMENTED_SOURCE = '''def strip_slash(path):
    """Drop one trailing slash.

    ```pycon
    >>> strip_slash("/a/")
    '/a'
    ```
    """
    return path[:-1]
'''
DOCUMENTED_FIX = '''def strip_slash(path):
    """Drop one trailing slash.

    ```pycon
    >>> strip_slash("/a/")
    '/a'
    ```
    """
    return path[:-1] if path.endswith("/") else path
'''


def test_a_docstring_with_a_markdown_fence_is_kept_whole_in_a_chat_reply():
    reply = fenced(DOCUMENTED_FIX, before="Bug: a path without a slash loses a letter.\n")
    candidate = check_candidate(
        reply + "It now checks first.\n",
        locate(DOCUMENTED_SOURCE, "strip_slash"),
        DOCUMENTED_SOURCE,
    )
    assert candidate.ok, candidate.problem
    assert candidate.code == DOCUMENTED_FIX
    assert candidate.explanation == "a path without a slash loses a letter."


def test_a_docstring_with_a_markdown_fence_is_kept_whole_in_a_completion_reply():
    target = locate(DOCUMENTED_SOURCE, "strip_slash")
    header = "def strip_slash(path):\n"
    body = DOCUMENTED_FIX[len(header) :]
    reply = body + "```\nBug: a path without a slash loses a letter.\n"
    candidate = check_candidate(
        reply, target, DOCUMENTED_SOURCE, opened_fence=True, code_prefix=header
    )
    assert candidate.ok, candidate.problem
    assert candidate.code == DOCUMENTED_FIX
    assert candidate.explanation == "a path without a slash loses a letter."
    # cut by the token limit inside the docstring's example: the code did not end
    cut = check_candidate(
        body[:60], target, DOCUMENTED_SOURCE, opened_fence=True, code_prefix=header, truncated=True
    )
    assert cut.cut and not cut.ok


def test_a_reply_whose_only_block_never_parses_is_reported_as_it_is():
    reply = "```python\ndef strip_slash(path):\n    return path[:-1\n```\nBug: x\n"
    candidate = check_candidate(reply, locate(DOCUMENTED_SOURCE, "strip_slash"), DOCUMENTED_SOURCE)
    assert not candidate.ok
    assert "does not parse" in candidate.problem
    assert candidate.explanation == "x"
