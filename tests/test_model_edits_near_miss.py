"""The near-miss round of the model's local edits (session/steps.py `_near_miss_round`): an
edit that makes some failing tests pass and breaks none is run afresh and edited once more,
so that a bug at two places is finished rather than lost."""

from __future__ import annotations

from pathlib import Path

from helpers.requests import request_of

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.transcript import read_transcript

RANGE = """def value_range(xs):
    low = xs[0]
    high = xs[-1]
    return low, high
"""
RANGE_TESTS = """from ranges import value_range


def test_low():
    assert value_range([3, 1, 2])[0] == 1


def test_high():
    assert value_range([3, 1, 2])[1] == 3


def test_sorted_input():
    assert value_range([1, 2, 3]) == (1, 3)
"""
TESTS = ["test_ranges.py::test_low", "test_ranges.py::test_high"]


class ByPlace(ScriptedBackend):
    """Answers by the hole's place: the line above it says which line the model writes.
    A right answer for each of the two wrong lines, a wrong one anywhere else."""

    def complete(self, request, cancel=None, on_text=None, on_progress=None):
        prefix = (request.infill or [""])[0]
        above = prefix.rstrip(" ").splitlines()[-1].strip()
        answer = {"def value_range(xs):": "low = min(xs)", "low = xs[0]": "high = max(xs)",
                  "low = min(xs)": "high = max(xs)"}.get(above, "return None")  # fmt: skip
        self._replies = [answer]
        return super().complete(request, cancel, on_text, on_progress)


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "ranges.py").write_text(RANGE, encoding="utf-8")
    (root / "test_ranges.py").write_text(RANGE_TESTS, encoding="utf-8")
    return root


def _request(root: Path, transcript: Path) -> DebugRequest:
    return request_of(
        file=root / "ranges.py", qualname="value_range", project_root=root, tests=TESTS,
        wider_tests=["test_ranges.py::test_sorted_input"], mode="auto", max_turns=0,
        transcript_path=transcript, generated_inputs=0, model_edit_samples=2,
    )  # fmt: skip


def test_a_model_edit_that_fixes_one_of_two_failures_is_finished_by_a_second_round(tmp_path):
    root = _project(tmp_path / "p")
    transcript = tmp_path / "t.jsonl"
    request = _request(root, transcript)
    backend = ByPlace(["return None"], prompt_form="completion")
    result = run_session(request, backend)
    assert result.success, result.error
    assert result.fixed_function == (
        "def value_range(xs):\n    low = min(xs)\n    high = max(xs)\n    return low, high\n"
    )
    events = read_transcript(transcript)
    steps = [e for e in events if e["event"] == "model_edits"]
    assert len(steps) == 2  # the first round, then the round on its partial fix
    (held,) = [e for e in events if e["event"] == "search_partial_run"]
    assert held["kept"] and held["passed"] == "1/2"
    # the second round was asked with the partial fix in the prompt (here the one at line 3:
    # the judge's first partial), and what still fails
    second = [r.infill for r in backend.requests if r.infill and "max(xs)" in "".join(r.infill)]
    assert second and all(
        "a failing test: assert value_range([3, 1, 2])[" in prefix for prefix, _ in second
    )
    # shown only what still fails: one of the two tests, no longer both
    assert all(prefix.count("a failing test:") == 1 for prefix, _ in second)
    assert (root / "ranges.py").read_text(encoding="utf-8") == RANGE  # untouched


def test_without_a_partial_fix_there_is_no_second_round(tmp_path):
    """Every answer is wrong: nothing passes that failed, so no round on a partial fix."""
    root = _project(tmp_path / "p")
    transcript = tmp_path / "t.jsonl"
    request = _request(root, transcript)
    result = run_session(request, ScriptedBackend(["return None"], prompt_form="completion"))
    assert not result.success
    events = read_transcript(transcript)
    assert len([e for e in events if e["event"] == "model_edits"]) == 1
    assert not [e for e in events if e["event"] == "search_partial_run"]
