"""One place where a session reports what it does: every record goes to the transcript, and
progress goes to the transcript and to the caller's callback alike, so the two never disagree."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from selfdebug.server.engine.transcript import Transcript
from selfdebug.server.engine.types import Progress, ProgressCallback

if TYPE_CHECKING:
    from selfdebug.server.runner.results import RunResult


class Recorder:
    def __init__(self, transcript: Transcript, progress: ProgressCallback | None = None) -> None:
        self.transcript = transcript
        self._progress = progress

    def record(self, event: str, **fields: Any) -> None:
        self.transcript.write(event, **fields)

    def progress(
        self,
        *,
        turn: int,
        max_turns: int,
        phase: str,
        fraction: float = 0.0,
        mode: str = "",
        baseline: RunResult | None = None,
    ) -> Progress:
        """A progress event: `fraction` (0..1) of turn `turn`; percentage is over the session;
        `baseline`: the session's first run of the chosen tests (see Progress.baseline)."""
        max_turns = max(1, max_turns)
        done = (max(turn - 1, 0) + min(max(fraction, 0.0), 1.0)) / max_turns
        percentage = 0 if turn == 0 else min(99, int(done * 100))
        event = Progress(
            turn=turn,
            max_turns=max_turns,
            phase=phase,
            percentage=percentage,
            message=f"turn {turn}/{max_turns}: {phase}" if turn else phase,
            mode=mode if turn else "",
            baseline=baseline,
        )
        self.record("progress", turn=turn, phase=phase, percentage=percentage)
        if self._progress is not None:
            try:
                self._progress(event)
            except Exception:  # a broken progress sink must not end the session
                pass
        return event

    def close(self) -> None:
        self.transcript.close()
