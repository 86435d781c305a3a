"""When the search's first survivors differ and the tests cannot choose, the fix may be a bigger
edit than any of them: the search judges the rest of its edits before the model's vote chooses
among them all. Real pytest runs; a scripted model writes the line at the vote's holes."""

from __future__ import annotations

from pathlib import Path

from helpers.requests import request_of

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.engine.types import Budget, Reporting, TargetSpec

# One weak test: `0` -> `1` at line 2 and `-` -> `*` at line 4 pass it too, and come first.
SCALED = """def scaled_total(values, factor):
    total = 0
    for v in values:
        total = total + v * factor - factor
    return total
"""
TEST = """from scaled import scaled_total


def test_one():
    assert scaled_total([1], 1) == 1
"""


def _project(tmp_path: Path, module: str = "scaled", code: str = SCALED, tests: str = TEST) -> Path:
    """A project of one module and its test file, in a folder named after the module."""
    root = tmp_path / module
    root.mkdir()
    (root / f"{module}.py").write_text(code)
    (root / f"test_{module}.py").write_text(tests)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    return root


def _request(root: Path, transcript: Path, mode: str, **extra) -> DebugRequest:
    return request_of(project_root=root, file=root / "scaled.py", qualname="scaled_total",
                      tests=["test_scaled.py::test_one"], mode=mode, max_turns=1,
                      transcript_path=transcript, **extra)  # fmt: skip


def test_differing_survivors_send_the_search_on_to_the_bigger_edit_the_model_writes(tmp_path):
    root = _project(tmp_path)
    transcript = tmp_path / "t.jsonl"
    backend = ScriptedBackend(["total = total + v * factor"], prompt_form="completion")
    result = run_session(_request(root, transcript, "auto"), backend)
    assert result.success, result.error
    assert result.fixed_function == SCALED.replace(" - factor", "")
    assert result.found_by == "edit search at line 4"
    events = read_transcript(transcript)
    searches = [e for e in events if e["event"] == "search"]
    assert searches[0]["stop"] == "found" and searches[0]["tried"] < searches[0]["total"]
    assert [e["event"] for e in events].count("search_goes_on") == 1
    assert searches[1]["stop"] == "exhausted"
    judged = next(e for e in events if e["event"] == "survivors_judged")
    assert judged["rule"] == "the model's choice"
    assert all(r.infill is not None for r in backend.requests)  # only the vote's holes
    assert (root / "scaled.py").read_text() == SCALED


ONE_LINE = """def scaled(v, factor):
    return v * factor - factor
"""
ONE_LINE_TEST = """from scaled import scaled


def test_one():
    assert scaled(1, 1) == 1
"""


def test_without_generated_inputs_the_search_goes_on_at_the_one_line_and_the_model_votes(
    tmp_path,
):
    """No input could compare the survivors (here: none are made); they are at one line, the
    place the tests agree on: the search goes on there, and an answer that is a survivor's
    program votes."""
    root = _project(tmp_path, code=ONE_LINE, tests=ONE_LINE_TEST)
    transcript = tmp_path / "t.jsonl"
    backend = ScriptedBackend(["return v * factor"], prompt_form="completion")
    request = DebugRequest(
        TargetSpec(root / "scaled.py", "scaled", root, tests=["test_scaled.py::test_one"]),
        mode="auto",
        budget=Budget(max_turns=1, generated_inputs=0),
        reporting=Reporting(transcript_path=transcript),
    )
    result = run_session(request, backend)
    assert result.success and result.fixed_function == ONE_LINE.replace(" - factor", "")
    events = read_transcript(transcript)
    (going,) = [e for e in events if e["event"] == "search_goes_on"]
    assert going["why"] == "no generated input could compare the survivors"
    judged = next(e for e in events if e["event"] == "survivors_judged")
    assert judged["rule"] == "the model's choice" and judged["groups"] == []
    assert result.caveat.endswith("fixes pass; no generated input could compare them")


def test_without_generated_inputs_survivors_at_several_lines_stay_undecided(tmp_path):
    root = _project(tmp_path)
    transcript = tmp_path / "t.jsonl"
    backend = ScriptedBackend(["total = total + v * factor"], prompt_form="completion")
    result = run_session(_request(root, transcript, "auto", generated_inputs=0), backend)
    assert not result.success
    events = read_transcript(transcript)
    assert "search_goes_on" not in [e["event"] for e in events]
    judged = next(e for e in events if e["event"] == "survivors_judged")
    assert judged["rule"] == "no generated inputs"


def test_without_a_vote_the_search_stops_at_its_first_survivors(tmp_path):
    root = _project(tmp_path)
    transcript = tmp_path / "t.jsonl"
    result = run_session(_request(root, transcript, "search"), ScriptedBackend(["unused"]))
    assert not result.success  # they differ at two lines: nothing proposed
    events = read_transcript(transcript)
    assert "search_goes_on" not in [e["event"] for e in events]
    assert next(e for e in events if e["event"] == "search")["stop"] == "found"


WRAPS = """class MissingError(LookupError):
    pass


def lookup(table, key):
    if not table:
        raise MissingError("empty table")
    try:
        return table[key]
    except KeyError as e:
        raise MissingError("no entry " + e.args[0])
"""
WRAPS_TESTS = """import pytest

from wraps import MissingError, lookup


def test_found():
    assert lookup({"a": 1}, "a") == 1


def test_missing_name():
    with pytest.raises(MissingError):
        lookup({"a": 1}, "b")


def test_missing_number():
    with pytest.raises(MissingError):
        lookup({"a": 1}, 3)
"""


def test_at_one_line_the_repair_that_keeps_the_functions_own_errors_is_proposed(tmp_path):
    """A TypeError where the function raises its own error: another message of the function,
    the key alone and the text without it pass first; they differ on generated inputs, at one
    line. The search judges the rest of its edits there (`str(...)` of the key comes later),
    and the one that keeps every error the original raised (a missing name's message) and
    changes only the TypeError is proposed."""
    root = _project(tmp_path, "wraps", WRAPS, WRAPS_TESTS)
    transcript = tmp_path / "t.jsonl"
    tests = ["test_wraps.py::test_found", "test_wraps.py::test_missing_name",
             "test_wraps.py::test_missing_number"]  # fmt: skip
    request = DebugRequest(
        TargetSpec(root / "wraps.py", "lookup", root, tests),
        mode="auto",
        budget=Budget(max_turns=1),
        reporting=Reporting(transcript_path=transcript),
    )
    backend = ScriptedBackend(["raise MissingError(key)"], prompt_form="completion")
    result = run_session(request, backend)
    assert result.success, result.error
    function = WRAPS[WRAPS.index("def lookup") :]
    assert result.fixed_function == function.replace("e.args[0]", "str(e.args[0])")
    events = read_transcript(transcript)
    judged = [e for e in events if e["event"] == "survivors_judged"]
    assert judged[-1]["rule"] == "only a repair" and len(judged[-1]["groups"]) > 2
    assert judged[-1]["agreement"].endswith(
        "every error it raised but the failing tests' TypeError"
    )
    (going,) = [e for e in events if e["event"] == "search_goes_on"]
    assert going["why"] == "the survivors differ and the tests cannot choose"
    searches = [e for e in events if e["event"] == "search"]
    assert searches[0]["stop"] == "found" and searches[1]["stop"] == "exhausted"
    assert "str(e.args[0])" not in str(searches[0]["survivors"])  # found by going on
    assert all("line 11" in g[0] for g in judged[-1]["groups"])  # at the survivors' one line
    assert (root / "wraps.py").read_text() == WRAPS
