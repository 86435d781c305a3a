"""The edit search at the places outside a function's body where real fixes go (issue 53): the
module-level constants, the class attributes and the default values it reads
(search/places.py, search/place_edits.py). Unit rules of which places there are and where their
edits go in the order, then real `mode search` sessions (the real runner, no model) whose fix is
at the constant's, the attribute's or the def line, the test process setting and restoring each
candidate's change, the overfitting refusal at a constant, and the editor's edit of the fix."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from helpers.requests import request_of

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import run_session
from selfdebug.server.engine.evidence import Evidence
from selfdebug.server.engine.judge.context import SearchSettings
from selfdebug.server.engine.search.edit_search import candidate_edits
from selfdebug.server.engine.search.localize import SuspiciousLine
from selfdebug.server.engine.search.place_edits import points_at
from selfdebug.server.engine.search.places import places_of
from selfdebug.server.engine.target import locate
from selfdebug.server.engine.types import DebugResult
from selfdebug.server.engine.types import TestTally as Tally
from selfdebug.server.lsp.edits import take_snapshot
from selfdebug.server.lsp.fix_delivery import first_stale_reason, fix_workspace_edit
from selfdebug.server.lsp.positions import UTF16
from selfdebug.server.lsp.proposal import proposed_document
from selfdebug.server.runner import ProjectRunner, RunnerSettings, results
from selfdebug.server.runner.search_runner import CandidateCode, SearchRunner

PLACES = '''"""Places."""
import re

LIMIT = 9
UNUSED = 4
COUNTER = 0
TABLE = {"a": 1, "b": 2}
PATTERN = re.compile(r"\\d+")
shadowed = 3


def bump():
    global COUNTER
    COUNTER += 1


class Pager:
    PAGE = 2
    NAME = "pager"

    def first(self, items, start=0, *, step=1, label=None):
        shadowed = 1
        found = items[start : start + min(LIMIT, self.PAGE) : step]
        return found, TABLE["a"], COUNTER, PATTERN, shadowed, type(self).NAME, label
'''


def test_the_places_are_the_constants_attributes_and_defaults_the_function_reads():
    target = locate(PLACES, "Pager.first")
    places = places_of(PLACES, target)
    found = [(p.kind, p.name, p.line, p.end_line, p.text, p.namespace) for p in places]
    assert found == [
        ("constant", "LIMIT", 4, 4, "LIMIT = 9", ""),
        ("constant", "TABLE", 7, 7, 'TABLE = {"a": 1, "b": 2}', ""),
        ("class attribute", "PAGE", 18, 18, "PAGE = 2", "Pager"),
        ("class attribute", "NAME", 19, 19, 'NAME = "pager"', "Pager"),
        ("default", "start", 21, 21, "0", ""),
        ("default", "step", 21, 21, "1", ""),
    ]  # not UNUSED (not read), COUNTER (rebound), PATTERN (a call of a name), shadowed, label
    assert [p.describe() for p in places[:3]] == [
        "constant LIMIT",
        "constant TABLE",
        "class attribute PAGE",
    ]
    assert places_of(PLACES, locate(PLACES, "bump")) == []  # COUNTER is state, not a constant


SHORTEN = '''"""Short labels."""

LIMIT = 9
ELLIPSIS = "..."


def shorten(text):
    if len(text) <= LIMIT:
        return text
    return text[: LIMIT - len(ELLIPSIS)] + ELLIPSIS
'''
SHORTEN_TESTS = """from text import shorten


def test_short_kept():
    assert shorten("abc") == "abc"


def test_ten_kept():
    assert shorten("abcdefghij") == "abcdefghij"


def test_long_cut():
    assert shorten("abcdefghijklmnop") == "abcdefg..."
"""


def _failure(left: str, right: str) -> Evidence:
    failed = results.TestResult(
        "t.py::t", "failed", exc_type="AssertionError", assert_left=left, assert_right=right,
        assert_op="==",
    )  # fmt: skip
    return Evidence.of(results.RunResult([failed], "rlimits", 0.1))


def test_place_edits_come_after_the_functions_own_unless_the_failure_points_at_them():
    target = locate(SHORTEN, "shorten")
    lines = [SuspiciousLine(n, 1.0, 1, 1, 0, 0) for n in (8, 9, 10)]
    settings = SearchSettings(max_edits=300)
    plain = candidate_edits(target, lines, settings)
    assert not any(e.outside for e in plain)  # no file text: no places
    later = candidate_edits(target, lines, settings, source=SHORTEN)
    at_places = [i for i, e in enumerate(later) if e.outside is not None]
    own = [i for i, e in enumerate(later) if e.outside is None and not e.parts]
    assert at_places and min(at_places) > max(own)  # after the function's single edits
    assert later[at_places[0]].describe() == "line 3 (constant LIMIT): `9` -> `10`"
    assert later[at_places[0]].program.startswith("LIMIT = 10\ndef shorten(text):")
    assert [e.code for e in later if e.outside] == [target.code] * len(at_places)
    assert len(at_places) <= 16 and len(later) <= 300
    # the function returned 9 characters where 10 were expected: the 9 is LIMIT's
    evidence = _failure("'abcdef...'", "'abcdefghij'")
    assert points_at(places_of(SHORTEN, target)[0], evidence)
    pointed = candidate_edits(target, lines, settings, source=SHORTEN, evidence=evidence)
    assert pointed[0].describe() == "line 3 (constant LIMIT): `9` -> `10`"
    assert pointed[0].rank == 0
    unrelated = _failure("'x'", "'y'")
    assert not points_at(places_of(SHORTEN, target)[0], unrelated)


RATES = '''"""Prices."""

RATES = {"food": 5, "standard": 20}


def with_tax(price, kind="standard"):
    return round(price + price * RATES[kind] / 100, 2)
'''


def test_a_table_gets_its_own_values_nudged_not_the_functions_literals():
    """At a place, a number moves by one, a flag flips, an operator swaps; the function's own
    literals (the `2` of `round`, the `100`) are never written into a module's table."""
    target = locate(RATES, "with_tax")
    lines = [SuspiciousLine(7, 1.0, 1, 1, 0, 0)]
    edits = candidate_edits(target, lines, SearchSettings(max_edits=300), source=RATES)
    at_table = [e.describe() for e in edits if e.outside is not None]
    assert at_table  # the table is a place: its values are edited
    assert "line 3 (constant RATES): `20` -> `21`" in at_table
    assert not any(e.endswith(("-> `2`", "-> `100`")) for e in at_table), at_table


def _project(root: Path, name: str, code: str, tests: str) -> Path:
    root.mkdir()
    (root / f"{name}.py").write_text(code, encoding="utf-8")
    (root / f"test_{name}.py").write_text(tests, encoding="utf-8")
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    return root


def _search(root: Path, name: str, qualname: str, tests: str) -> DebugResult:
    ids = [f"test_{name}.py::{line[4:].split('(')[0]}" for line in tests.splitlines()
           if line.startswith("def test_")]  # fmt: skip
    return run_session(
        request_of(
            file=root / f"{name}.py",
            qualname=qualname,
            project_root=root,
            tests=ids,
            wider_tests=[],
            mode="search",
            test_timeout_s=5.0,
            transcript_path=root.parent / "transcript.jsonl",
        ),
        ScriptedBackend(["never asked"]),
    )


def _changed(before: str, after: str) -> list[str]:
    """The diff's changed lines (`-old`, `+new`)."""
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="")
        if line[:1] in "+-" and line[:3] not in ("+++", "---")
    ]


WIDTH = """WIDTH = 9


def cell(text):
    return text[:WIDTH].ljust(WIDTH)
"""
WIDTH_TESTS = """from cells import cell


def test_pads():
    assert cell("ab") == "ab        "


def test_cuts():
    assert cell("abcdefghijklmn") == "abcdefghij"
"""


@pytest.mark.parametrize(
    ("name", "code", "tests", "qualname"),
    [("text", SHORTEN, SHORTEN_TESTS, "shorten"), ("cells", WIDTH, WIDTH_TESTS, "cell")],
    ids=["once", "read-twice"],
)
def test_a_wrong_constant_is_fixed_where_it_is_written(tmp_path, name, code, tests, qualname):
    """`read-twice`: `WIDTH + 1` at both reads passes the tests too and behaves the same; the
    fix is the constant's."""
    root = _project(tmp_path / name, name, code, tests)
    result = _search(root, name, qualname, tests)
    assert result.success, (result.error, result.warnings)
    assert result.model_calls == 0 and result.found_by.startswith("edit search at line ")
    constant = code.splitlines()[code.splitlines().index("WIDTH = 9" if name == "cells" else
                                                          "LIMIT = 9")]  # fmt: skip
    assert _changed(code, result.fixed_file or "") == [f"-{constant}",
                                                       f"+{constant[:-1]}10"]  # fmt: skip
    assert result.fixed_function == locate(code, qualname).code  # the function is as it was
    assert f"-{constant}" in result.diff and f"+{constant[:-1]}10" in result.diff
    assert "(constant " in result.explanation
    assert (root / f"{name}.py").read_text() == code  # the user's file untouched


SPLIT = """def split(total, parts=3):
    share = total // parts
    return [share] * parts
"""
SPLIT_TESTS = """from shares import split


def test_default_halves():
    assert split(10) == [5, 5]


def test_thirds():
    assert split(9, 3) == [3, 3, 3]
"""


def test_a_wrong_default_value_is_fixed_in_the_def_line(tmp_path):
    root = _project(tmp_path / "shares", "shares", SPLIT, SPLIT_TESTS)
    result = _search(root, "shares", "split", SPLIT_TESTS)
    assert result.success, (result.error, result.warnings)
    assert _changed(SPLIT, result.fixed_file or "") == [
        "-def split(total, parts=3):",
        "+def split(total, parts=2):",
    ]
    assert "(default of parts)" in result.explanation


PAGER = '''class Pager:
    """Pages of text."""

    PAGE = 2

    def first(self, text):
        return text[: self.PAGE]
'''
PAGER_TESTS = """from pager import Pager


def test_first_page():
    assert Pager().first("abcdef") == "abc"


def test_short_text():
    assert Pager().first("a") == "a"
"""


def test_a_wrong_class_attribute_is_fixed_in_the_class_body(tmp_path):
    root = _project(tmp_path / "pager", "pager", PAGER, PAGER_TESTS)
    result = _search(root, "pager", "Pager.first", PAGER_TESTS)
    assert result.success, (result.error, result.warnings)
    assert _changed(PAGER, result.fixed_file or "") == ["-    PAGE = 2", "+    PAGE = 3"]
    assert "(class attribute PAGE)" in result.explanation


INSIDE = """LIMIT = 10


def shorten(text):
    if len(text) < LIMIT:
        return text
    return text[: LIMIT - 3] + "..."
"""


def test_a_bug_inside_the_function_is_still_fixed_there(tmp_path):
    """The constant is read and right: its edits are tried, the fix is the comparison's."""
    root = _project(tmp_path / "text", "text", INSIDE, SHORTEN_TESTS)
    result = _search(root, "text", "shorten", SHORTEN_TESTS)
    assert result.success, (result.error, result.warnings)
    assert _changed(INSIDE, result.fixed_file or "") == [
        "-    if len(text) < LIMIT:",
        "+    if len(text) <= LIMIT:",
    ]


CLAMP = """MAX = 99


def clamp(x):
    return min(x, MAX)
"""
CLAMP_TESTS = """from clamp import clamp


def test_big():
    assert clamp(500) == 100


def test_small():
    assert clamp(5) == 5
"""


def test_a_failing_tests_expected_value_is_never_written_into_a_constant(tmp_path):
    root = _project(tmp_path / "clamp", "clamp", CLAMP, CLAMP_TESTS)
    result = _search(root, "clamp", "clamp", CLAMP_TESTS)
    refused = [r for r in result.refused if "(constant MAX)" in r]
    assert refused and "writes the test's expected value 100" in refused[0]
    assert "MAX = 100" not in (result.fixed_file or "")


def test_the_test_process_sets_each_change_and_restores_it_after(tmp_path):
    """A candidate's constant, class attribute and default values hold for its own tests only:
    the unchanged function judged after them fails as the original does."""
    code = """LIMIT = 1


class Box:
    SIZE = 1

    def fits(self, n, extra=0):
        return n <= LIMIT + self.SIZE + extra
"""
    tests = """from box import Box


def test_fits():
    assert Box().fits(5)
"""
    root = _project(tmp_path / "box", "box", code, tests)
    target = locate(code, "Box.fits")
    first = target.start_line + 1
    with_default = target.code.replace("extra=0", "extra=3")
    with ProjectRunner(root, RunnerSettings(test_timeout_s=10)) as runner:
        searcher = SearchRunner(runner, root / "box.py", "Box.fits", code, first)
        judged = searcher.judge(
            [
                CandidateCode(0, target.code, first, (("", "LIMIT = 4"),)),
                CandidateCode(1, target.code, first),
                CandidateCode(2, target.code, first, (("Box", "SIZE = 4"),)),
                CandidateCode(3, target.code, first),
                CandidateCode(4, with_default, first, defaults=True),
                CandidateCode(5, target.code, first),
                CandidateCode(6, target.code, first, (("Nowhere", "SIZE = 4"),)),
            ],
            ["test_box.py::test_fits"],
            [],
        )
    outcome = {i: v.outcomes.get("test_box.py::test_fits") for i, v in judged.verdicts.items()}
    assert outcome == {0: "passed", 1: "failed", 2: "passed", 3: "failed", 4: "passed",
                       5: "failed", 6: None}  # fmt: skip
    assert "no class Nowhere" in judged.verdicts[6].problem


LSP_SOURCE = '''"""Module."""

LIMIT = 9


def shorten(text):
    return text[:LIMIT]


def other():
    return LIMIT
'''


def test_the_editors_edit_changes_the_constants_line(tmp_path):
    snapshot = take_snapshot("file:///p/text.py", tmp_path / "text.py", 3, LSP_SOURCE, "shorten")
    fixed = LSP_SOURCE.replace("LIMIT = 9", "LIMIT = 10")
    result = DebugResult(
        stop_reason="passed", turns=0, mode="search", original_function=snapshot.function_text,
        fixed_function=locate(LSP_SOURCE, "shorten").code, fixed_file=fixed, diff="",
        explanation="edit search", chosen_before=Tally(0, 1), chosen_after=Tally(1, 1),
    )  # fmt: skip
    edit, new_text = fix_workspace_edit(snapshot, result, UTF16)
    (change,) = edit.document_changes or []
    (text_edit,) = change.edits
    assert text_edit.range.start.line == 2 and text_edit.range.end.line == 3
    assert text_edit.new_text == "LIMIT = 10\n"
    assert new_text == snapshot.function_text.decode()  # nothing inside the function
    outside = [(len('"""Module."""\n\n'), len('"""Module."""\n\nLIMIT = 9\n'), "LIMIT = 10\n")]
    assert proposed_document(snapshot, new_text, (), outside) == fixed
    assert first_stale_reason([snapshot], 3, LSP_SOURCE, True) is None
    moved = LSP_SOURCE.replace("return LIMIT", "return LIMIT + 0")
    unversioned = take_snapshot("file:///p/text.py", tmp_path / "text.py", None, LSP_SOURCE,
                                "shorten")  # fmt: skip
    assert first_stale_reason([unversioned], None, moved) is None  # the function is as it was
    assert "outside the function" in (first_stale_reason([unversioned], None, moved, True) or "")
