"""What the tests cannot tell reaches the user (issue 37 item 4): fixes that pass and differ,
a fix checked only by the chosen tests, candidates refused as overfitting. Real pytest runs."""

from __future__ import annotations

import io
from pathlib import Path

from helpers.requests import request_of

from selfdebug.commands.fix_report import evidence_line, report
from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.transcript import read_transcript

# `hi - 1` should be `hi`; `hi + 1` passes the two tests too, and differs from it on clip(3, 2)
CLIP = "def clip(x, hi):\n    return min(x, hi - 1)\n"
CLIP_TESTS = """from clip import clip


def test_at_the_top():
    assert clip(7, 7) == 7


def test_below():
    assert clip(3, 5) == 3
"""


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "clip.py").write_text(CLIP, encoding="utf-8")
    (root / "test_clip.py").write_text(CLIP_TESTS, encoding="utf-8")
    return root


def _request(root: Path, **changes) -> DebugRequest:
    fields = dict(
        file=root / "clip.py",
        qualname="clip",
        project_root=root,
        tests=["test_clip.py::test_at_the_top"],
        wider_tests=["test_clip.py::test_below"],
        mode="search",
    )
    fields.update(changes)
    return request_of(**fields)


def test_fixes_that_pass_and_differ_are_named_in_the_evidence(tmp_path):
    root = _project(tmp_path / "clip")
    result = run_session(_request(root), ScriptedBackend(["never asked"]))
    assert result.success
    assert result.caveat.startswith("2 fixes pass; they differ on clip(")
    assert result.caveat in evidence_line(result)
    alternatives = result.alternatives  # the same, for a script (`fix --json`)
    assert alternatives is not None and len(alternatives.edits) == 2
    assert alternatives.call.startswith("clip(") and alternatives.call in result.caveat
    assert len(set(alternatives.results)) == 2  # each edit's own result on that input
    for edit, outcome in zip(alternatives.edits, alternatives.results, strict=True):
        assert f"{edit} {outcome}" in result.caveat


def test_in_auto_the_model_chooses_among_fixes_the_tests_cannot_tell_apart(tmp_path):
    """`hi + 1` and `x` pass and differ; the search alone stops there and proposes the
    first. In `auto` it goes on at their one line (`hi - 1` -> `hi` passes too), the model is
    sampled there, and the fix it writes itself is the one proposed, with the vote in the
    evidence."""
    root = _project(tmp_path / "clip")
    backend = ScriptedBackend(["return min(x, hi)"], prompt_form="completion")
    result = run_session(_request(root, mode="auto", max_turns=1), backend)
    assert result.success and result.fixed_function == CLIP.replace("hi - 1", "hi")
    assert result.caveat.startswith("3 fixes pass; they differ on clip(")
    assert [bool(r.infill) for r in backend.requests] == [True, True]  # greedy, then sampled
    assert "the one the model writes itself at line 2 (4 of 4 samples)" in result.explanation
    undecided = ScriptedBackend(["return max(x, hi)"], prompt_form="completion")  # no survivor
    result = run_session(_request(root, mode="auto", max_turns=1), undecided)
    assert result.fixed_function == CLIP.replace("hi - 1", "hi + 1")  # the search's own rule


def test_a_model_answer_that_is_no_survivor_votes_for_the_one_it_behaves_like(tmp_path):
    """`x if x < hi else hi` is none of the search's survivors, but on every generated input
    it returns what `hi - 1` -> `hi` returns and not what the others do: a vote for that
    behaviour, whose simplest edit is proposed."""
    root = _project(tmp_path / "clip")
    backend = ScriptedBackend(["return x if x < hi else hi"], prompt_form="completion")
    transcript = tmp_path / "t.jsonl"
    result = run_session(
        _request(root, mode="auto", max_turns=1, transcript_path=transcript), backend
    )
    assert result.success and result.fixed_function == CLIP.replace("hi - 1", "hi")
    assert "the one that behaves like the model's own answer at line 2 (4 of 4" in (
        result.explanation
    )
    (vote,) = [r for r in read_transcript(transcript) if r["event"] == "model_preference"]
    assert vote["votes"] == {} and vote["alike"] == 4


def test_a_fix_checked_only_by_the_chosen_tests_says_so(tmp_path):
    root = _project(tmp_path / "clip")
    request = _request(root, wider_tests=[], mode="ut", max_turns=1)
    fixed = CLIP.replace("hi - 1", "hi")
    result = run_session(request, ScriptedBackend([f"Off by one.\n```python\n{fixed}```\n"]))
    assert result.success and result.fixed_function == fixed
    assert result.caveat == "checked only by the 1 chosen test"
    assert result.alternatives is None


def test_a_refused_candidate_is_listed(tmp_path):
    root = _project(tmp_path / "clip")
    overfit = CLIP.replace("return min(x, hi - 1)", "return 7 if x == 7 else min(x, hi - 1)")
    request = _request(root, mode="ut", max_turns=1)
    result = run_session(request, ScriptedBackend([f"Special case.\n```python\n{overfit}```\n"]))
    assert not result.success
    assert result.refused == [
        "the model's turn 1: writes the test's expected value 7 into the code"
    ]
    out = io.StringIO()
    report(result, request, out=out)
    assert "Refused: the model's turn 1: writes the test's expected value 7" in out.getvalue()
