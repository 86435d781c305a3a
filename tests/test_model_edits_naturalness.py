"""When the model's written answers vote for none of the fixes the tests cannot tell apart, the
one whose line it finds most natural (relative to the line it replaces) is chosen. Real pytest
runs; a scripted model whose fill scores are given (the real GGUF's scores:
tests/test_model_edits.py)."""

from __future__ import annotations

from pathlib import Path

from helpers.count_project import COUNT, write_count_project

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.model_edits.naturalness import InfillScorer
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.engine.types import Budget, Reporting, TargetSpec


class ScoredScript(ScriptedBackend):
    """Scripted answers, and a fill's score from a table (-2.0 for any other text)."""

    def __init__(self, replies: list[str], scores: dict[str, float]) -> None:
        super().__init__(replies, prompt_form="completion")
        self.scores = scores
        self.scored: list[list[str]] = []

    def score_infill(
        self,
        prefix: str,
        suffix: str,
        texts: list[str],
        cancel: CancelToken | None = None,
        deadline_s: float = 60.0,
    ) -> list[float]:
        self.scored.append(texts)
        return [self.scores.get(text, -2.0) for text in texts]


def _request(root: Path, transcript: Path) -> DebugRequest:
    return DebugRequest(
        TargetSpec(
            root / "count.py", "count_at_least", root, ["test_count.py::test_two_at_least_two"]
        ),
        mode="auto",
        budget=Budget(max_turns=1),
        reporting=Reporting(transcript_path=transcript),
    )


def test_the_survivor_the_model_finds_most_natural_is_chosen_when_no_answer_votes(tmp_path):
    root = write_count_project(tmp_path / "p")
    transcript = tmp_path / "t.jsonl"
    # every written answer repeats line 2: no vote; `>=` reads better than the `>` it replaces
    backend = ScoredScript(["kept = 0"], {"if x >= limit:": -0.5, "if x > limit:": -1.0})
    assert isinstance(backend, InfillScorer)
    result = run_session(_request(root, transcript), backend)
    assert result.success and result.fixed_function == COUNT.replace("x > limit", "x >= limit")
    assert "the one the model finds most natural at line 4 (its line +0.50 nats a token " in (
        result.explanation
    )
    at_line_4 = next(texts for texts in backend.scored if texts[0] == "if x > limit:")
    assert set(at_line_4[1:]) == {"if x >= limit:", "if x <= limit:", "if x != limit:"}
    (vote,) = [r for r in read_transcript(transcript) if r["event"] == "model_preference"]
    assert vote["votes"] == {} and vote["natural"]["line 4: `>` -> `>=`"] == 0.5
    assert (root / "count.py").read_text() == COUNT


def test_no_survivor_is_chosen_when_two_fixes_read_about_as_well(tmp_path):
    root = write_count_project(tmp_path / "p")
    transcript = tmp_path / "t.jsonl"
    near = {"if x > limit:": -1.0, "if x >= limit:": -0.8, "if x <= limit:": -0.85}
    near |= {"kept = 1": -3.0, "return limit": -3.0}  # far below their lines (-2.0)
    result = run_session(_request(root, transcript), ScoredScript(["kept = 0"], near))
    assert not result.success  # +0.20 and +0.15 against the line: within the margin
    (vote,) = [r for r in read_transcript(transcript) if r["event"] == "model_preference"]
    assert vote["natural"]["line 4: `>` -> `>=`"] == 0.2
    judged = next(r for r in read_transcript(transcript) if r["event"] == "survivors_judged")
    assert judged["rule"] == "ambiguous"


def test_no_survivor_is_chosen_when_none_reads_better_than_the_line_it_replaces(tmp_path):
    root = write_count_project(tmp_path / "p")
    transcript = tmp_path / "t.jsonl"
    worse = {"if x > limit:": -0.5, "if x >= limit:": -0.6, "kept = 1": -3.0, "return limit": -3.0}
    result = run_session(_request(root, transcript), ScoredScript(["kept = 0"], worse))
    assert not result.success  # `>=` is best by far, but reads worse than the bug's `>`
    (vote,) = [r for r in read_transcript(transcript) if r["event"] == "model_preference"]
    assert max(vote["natural"].values()) == -0.1
