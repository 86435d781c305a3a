"""The model's local edits of a few lines (issue 53): the holes where a fix adds lines (a guard
before a statement, a statement grown into several, a new branch of an if/elif chain, longer
gaps), the answers cut to them whole and parsing, the samples spread over the best places, and
a guard written into its hole fixing a missing early return in a real session (real pytest
runs; a scripted model answers each hole by the code that follows it)."""

from __future__ import annotations

import ast

from helpers.requests import request_of

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import run_session
from selfdebug.server.engine.answers.candidate import program_key
from selfdebug.server.engine.model_edits import chat_holes
from selfdebug.server.engine.model_edits.fim_prompt import build_prompt
from selfdebug.server.engine.model_edits.holes import Hole, holes_at
from selfdebug.server.engine.model_edits.samples import edits_from, max_lines, stop_strings
from selfdebug.server.engine.model_edits.step import SPREAD, plan_asks
from selfdebug.server.engine.search.localize import SuspiciousLine
from selfdebug.server.engine.target import locate
from selfdebug.server.engine.transcript import read_transcript

CONVERT = '''def convert(obj, default_value=None):
    """Text of `obj`."""
    if isinstance(obj, str):
        value = obj.strip()
    elif isinstance(obj, int):
        value = str(obj)
    else:
        value = default_value
    result = value.upper()
    return result
'''


def _lines(*numbers: int, scores: tuple[float, ...] = ()) -> list[SuspiciousLine]:
    return [
        SuspiciousLine(n, scores[i] if i < len(scores) else 1.0 - i / 10, 1, 1, 0, 1)
        for i, n in enumerate(numbers)
    ]


def _spans(source: str, qualname: str, *lines: int) -> list[tuple[str, int, str, int, int, str]]:
    """(kind, rank, the code line the hole starts at or "END", the lines it replaces, its most
    lines, next_line) per hole."""
    target = locate(source, qualname)
    code = target.code.splitlines()
    spans = []
    for h in holes_at(target, _lines(*lines)):
        at = code[h.first - 1].strip() if h.first <= len(code) else "END"
        spans.append((h.kind, h.rank, at, h.replaced, h.lines, h.next_line or ""))
    return spans


def test_the_holes_of_a_few_lines_come_after_the_one_line_holes_place_by_place():
    """At `value = obj.strip()` (in the chain's first branch) and `result = value.upper()`:
    first the holes of before (line, gap, block), then per place a guard before the first
    suspicious statement, the statement grown, a branch before the branch holding it (the
    chain's `if` then reads `elif`) and before the `else`, a longer gap at the body's end."""
    spans = _spans(CONVERT, "convert", 4, 9)
    assert [(kind, rank) for kind, rank, *_ in spans[:5]] == [
        ("line", 0), ("line", 1), ("gap", 0), ("gap", 1), ("block", 0)]  # fmt: skip
    assert spans[5:] == [
        # (kind, rank, the line it is at or before, lines replaced, most lines, next line)
        ("guard", 0, "value = obj.strip()", 0, 8, ""),
        ("grown", 0, "value = obj.strip()", 1, 6, ""),
        ("branch", 0, "if isinstance(obj, str):", 0, 8, "    elif isinstance(obj, str):"),
        ("branch", 0, "else:", 0, 8, ""),
        ("gap", 0, "elif isinstance(obj, int):", 0, 8, ""),  # the end of the branch's body
        ("grown", 1, "result = value.upper()", 1, 6, ""),
    ]
    # before a return: a guard; at an `elif` header: a branch before it, none before the whole
    # chain, the header grown not at all (new lines before an `elif` end the chain), a longer
    # gap at the start of its body (and no block: an `elif` opens none of its own)
    assert ("guard", 0, "return result", 0, 8, "") in _spans(CONVERT, "convert", 10)
    at_elif = _spans(CONVERT, "convert", 5)
    assert ("branch", 0, "elif isinstance(obj, int):", 0, 8, "") in at_elif
    assert ("branch", 0, "else:", 0, 8, "") in at_elif
    assert ("gap", 0, "value = str(obj)", 0, 8, "") in at_elif
    assert {kind for kind, *_ in at_elif} == {"line", "branch", "gap"}
    # the `else` body: one branch, before the `else`
    in_else = [s for s in _spans(CONVERT, "convert", 8) if s[0] == "branch"]
    assert in_else == [("branch", 0, "else:", 0, 8, "")]


def test_a_chain_without_else_gets_its_new_branch_after_its_last_one():
    source = "def sign(x):\n    s = 0\n    if x > 0:\n        s = 1\n    return s\n"
    branches = [s for s in _spans(source, "sign", 4) if s[0] == "branch"]
    assert branches == [
        ("branch", 0, "if x > 0:", 0, 8, "    elif x > 0:"),
        ("branch", 0, "return s", 0, 8, ""),  # after the chain, at its indentation
    ]
    target = locate(source, "sign")
    hole = next(h for h in holes_at(target, _lines(4)) if h.kind == "branch" and h.first == 5)
    assert hole.indent == "    " and stop_strings(hole) == ["\n\n"] and max_lines(hole) == 8


DECIMAL = """from decimal import Decimal


def to_decimal(val):
    return Decimal(val)
"""


def test_a_grown_answer_of_four_lines_is_kept_whole_and_a_line_hole_keeps_one():
    """`return Decimal(val)` -> an assignment, a check, a raise and the return (a real kind of
    fix the one-line holes cannot write)."""
    target = locate(DECIMAL, "to_decimal")
    holes = holes_at(target, _lines(5))
    grown = next(h for h in holes if h.kind == "grown")
    line = next(h for h in holes if h.kind == "line")
    answer = (
        "d = Decimal(val)\n    if not d.is_finite():\n        raise ValueError(val)\n    return d"
    )
    seen = {program_key(target.code)}
    (edit,) = edits_from(target, grown, [answer], seen)
    assert edit.after.splitlines() == [
        "    d = Decimal(val)",
        "    if not d.is_finite():",
        "        raise ValueError(val)",
        "    return d",
    ]
    assert edit.before == "    return Decimal(val)" and edit.size == 5
    assert edit.origin == "the model at line 5 (sample 1 of 1)"
    assert "raise ValueError(val)" in edit.code and ast.parse(edit.code)
    # the one-line hole at the same line keeps one line: the first alone is a new program
    (one,) = edits_from(target, line, [answer], {program_key(target.code)})
    assert one.after == "    d = Decimal(val)"


def test_a_multi_line_answer_is_cut_where_it_parses_and_copies_are_no_edit():
    target = locate(CONVERT, "convert")
    holes = holes_at(target, _lines(9))
    guard = next(h for h in holes if h.kind == "guard")  # before `result = value.upper()`
    assert target.code.splitlines()[guard.first - 1].strip() == "result = value.upper()"
    seen = {program_key(target.code)}
    texts = [
        # the copy of the line that follows: nothing new
        "result = value.upper()",
        "result = value.upper()\n    return result",
        # a guard, then the model writes on into the code that follows: that part dropped
        "if value is None:\n        return None\n    result = value.upper()\n    return result",
        # cut at its most lines within a header that has no body: the header dropped
        "if value is None:\n        value = ''\n    if value == '':",
    ]
    edits = edits_from(target, guard, texts, seen, numbers=[1, 2, 3, 4], total=4)
    assert [e.after for e in edits] == [
        "    if value is None:\n        return None",
        "    if value is None:\n        value = ''",
    ]
    assert [e.origin for e in edits] == [
        "the model before line 9 (sample 3 of 4)",
        "the model before line 9 (sample 4 of 4)",
    ]
    # in a longer gap an answer that repeats the line just above it is no edit either; the
    # gap of before (three lines) keeps its one-line answers as they were
    after_strip = holes_at(target, _lines(4))
    long_gap = next(h for h in after_strip if h.kind == "gap" and h.lines)
    gap = next(h for h in after_strip if h.kind == "gap" and not h.lines)
    assert (long_gap.first, long_gap.last) == (gap.first, gap.last)
    assert edits_from(target, long_gap, ["value = obj.strip()"], seen) == []
    assert len(edits_from(target, gap, ["value = obj.strip()"], seen)) == 1


def test_a_branch_before_the_chains_if_makes_it_elif_in_the_prompt_and_the_edit():
    target = locate(CONVERT, "convert")
    hole = next(h for h in holes_at(target, _lines(4)) if h.kind == "branch" and h.next_line)
    prompt = build_prompt(CONVERT, target, hole)
    assert prompt.prefix.endswith('    """Text of `obj`."""\n    ')
    assert prompt.suffix.startswith("\n    elif isinstance(obj, str):\n        value = obj.strip()")
    (edit,) = edits_from(
        target, hole, ["if obj is None:\n        value = ''"], {program_key(target.code)}
    )
    assert edit.code.splitlines()[2:6] == [
        "    if obj is None:",
        "        value = ''",
        "    elif isinstance(obj, str):",
        "        value = obj.strip()",
    ]
    assert edit.before == "    if isinstance(obj, str):"
    assert edit.after == "    if obj is None:\n        value = ''\n    elif isinstance(obj, str):"


def test_the_first_samples_visit_the_three_best_places_before_a_second_sample_anywhere():
    target = locate(CONVERT, "convert")
    lines = _lines(9, 4, 10, 6, scores=(1.0, 0.8, 0.5, 0.25))
    holes = holes_at(target, lines)
    asks = plan_asks(holes, lines, samples=8)
    first = asks[:SPREAD]
    assert [(a.hole.kind, a.hole.rank, a.greedy, a.sampled) for a in first] == [
        ("line", 0, True, 0), ("line", 1, True, 0), ("line", 2, True, 0)]  # fmt: skip
    assert (asks[SPREAD].hole, asks[SPREAD].greedy) == (first[0].hole, False)
    # a hole's samples by its line's score against the best: 8, 7 (0.8), 4 (0.5), 2 at least
    assert [a.total for a in asks[:SPREAD]] == [8, 7, 4]
    assert {a.total for a in asks if a.hole.rank == 3} == {2}
    # every hole gets its greedy answer once and its samples in all
    for hole in holes:
        mine = [a for a in asks if a.hole == hole]
        assert sum(a.greedy for a in mine) == 1
        assert sum(a.greedy + a.sampled for a in mine) == mine[0].total


def test_a_chat_model_is_told_what_a_hole_of_a_few_lines_lacks_and_answers_it_whole():
    target = locate(CONVERT, "convert")
    holes = holes_at(target, _lines(4))
    branch = next(h for h in holes if h.kind == "branch" and h.next_line)
    asked = chat_holes.messages(target, branch, [])[-1]["content"]
    assert "    # >>> the code for this place <<<\n    elif isinstance(obj, str):\n" in asked
    assert "A branch of the if/elif chain is missing at the marked place." in asked
    grown = next(h for h in holes if h.kind == "grown")
    asked = chat_holes.messages(target, grown, [])[-1]["content"]
    assert "`value = obj.strip()`, and it is wrong: it may take a few lines." in asked
    reply = "```python\nif obj is None:\n    value = ''\n```"
    (edit,) = edits_from(
        target, branch, [chat_holes.as_infill(reply, target.indent, branch)], set()
    )
    assert edit.after == "    if obj is None:\n        value = ''\n    elif isinstance(obj, str):"


RATIO = """def average_ratio(values, base):
    total = sum(values)
    count = len(values)
    return total / count / base
"""
RATIO_TESTS = """from ratio import average_ratio


def test_empty_is_zero():
    assert average_ratio([], 2) == 0


def test_ratio():
    assert average_ratio([2, 4], 3) == 1
"""
GUARD = "if not values:\n        return 0"


class HoleAnswers(ScriptedBackend):
    """Answers a hole by the code that follows it (the FIM suffix): GUARD before the function's
    first statement, a comment (no edit) anywhere else."""

    def __init__(self) -> None:
        super().__init__(["unused"], prompt_form="completion")

    def complete(self, request, cancel=None, on_text=None, on_progress=None):
        suffix = (request.infill or ["", ""])[1].lstrip()
        self._replies = [GUARD if suffix.startswith("total = sum(values)") else "# no idea"]
        return super().complete(request, cancel, on_text, on_progress)


def test_a_guard_written_before_the_first_statement_fixes_a_missing_early_return(tmp_path):
    """`average_ratio([])` divides by zero at line 4; the fix is an early return before line 2,
    where no one-line hole and no gap goes (a gap is after a statement). The answer in the
    guard hole is judged by real pytest runs and proposed; the diff shows its two lines."""
    root = tmp_path / "p"
    root.mkdir()
    (root / "ratio.py").write_text(RATIO, encoding="utf-8")
    (root / "test_ratio.py").write_text(RATIO_TESTS, encoding="utf-8")
    transcript = tmp_path / "t.jsonl"
    request = request_of(
        file=root / "ratio.py", qualname="average_ratio", project_root=root,
        tests=["test_ratio.py::test_empty_is_zero"], wider_tests=["test_ratio.py::test_ratio"],
        mode="auto", auto_search=False, max_turns=0, transcript_path=transcript,
        generated_inputs=0, model_edit_samples=2,
    )  # fmt: skip
    backend = HoleAnswers()
    result = run_session(request, backend)
    assert result.success, result.error
    guarded = "    if not values:\n        return 0\n    total = sum(values)\n"
    assert result.fixed_function == RATIO.replace("    total = sum(values)\n", guarded)
    assert result.found_by == "the model before line 2 (sample 1 of 2)"
    added = [line for line in result.diff.splitlines() if line.startswith("+ ")]
    assert added == ["+    if not values:", "+        return 0"]
    assert result.wider_after is not None and result.wider_after.passed == 1
    # the three places (lines 4, 3, 2 tie; the later first) each had their greedy answer
    # before the first place's second sample
    asked = [(r.temperature, (r.infill or ["", ""])[1].split("\n")[1].strip())
             for r in backend.requests]  # fmt: skip
    assert asked[:4] == [
        (0.0, ""),  # the line hole at `return ...`: nothing follows
        (0.0, "return total / count / base"),  # at `count = len(values)`
        (0.0, "count = len(values)"),  # at `total = sum(values)`
        (asked[3][0], ""),  # the first place again, sampled
    ]
    assert asked[3][0] > 0
    guards = [e for e in read_transcript(transcript)
              if e["event"] == "model_edits_hole" and e["kind"] == "guard"]  # fmt: skip
    assert [g["samples"] for g in guards if g["line"] == 2] == [[GUARD, GUARD]]


def test_a_one_line_hole_is_still_one_line_and_its_kinds_come_first():
    """The commonest fix changes one line: its hole is first and strictly one line, whatever
    the answer writes on."""
    target = locate(RATIO, "average_ratio")
    holes = holes_at(target, _lines(4, 3, 2))
    assert [h.kind for h in holes[:3]] == ["line", "line", "line"]
    first = holes[0]
    assert stop_strings(first) == ["\n"] and max_lines(first) == 1 and first.lines == 0
    (edit,) = edits_from(target, first, ["return total / max(count, 1) / base\n    x = 1"], set())
    assert edit.after == "    return total / max(count, 1) / base"
    assert Hole(4, 4, "line", 0, "    ").lines == 0  # the kinds of before keep their rules
