"""One place where a session reports what it does: every record goes to the transcript, and
progress goes to the transcript and to the caller's callback alike, so the two never disagree.
A running model call's progress ("model: 140 tokens, 6 tok/s") is added to the last phase."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from selfdebug.server.engine.transcript import Transcript
from selfdebug.server.engine.types import Progress, ProgressCallback

if TYPE_CHECKING:
    from selfdebug.server.backends.base import CallProgress
    from selfdebug.server.engine.types import DebugResult
    from selfdebug.server.runner.results import RunResult


class Recorder:
    def __init__(self, transcript: Transcript, progress: ProgressCallback | None = None) -> None:
        self.transcript = transcript
        self._progress = progress
        self._phase: dict[str, Any] | None = None  # the last progress event's own fields

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
        model: str = "",
    ) -> Progress:
        """A progress event: `fraction` (0..1) of turn `turn`; percentage is over the session;
        `baseline`: the session's first run of the chosen tests (see Progress.baseline);
        `model`: how far the running model call has come."""
        if not model:
            self._phase = dict(
                turn=turn, max_turns=max_turns, phase=phase, fraction=fraction, mode=mode
            )
        max_turns = max(1, max_turns)
        done = (max(turn - 1, 0) + min(max(fraction, 0.0), 1.0)) / max_turns
        percentage = 0 if turn == 0 else min(99, int(done * 100))
        event = Progress(
            turn=turn,
            max_turns=max_turns,
            phase=phase,
            percentage=percentage,
            message=(f"turn {turn}/{max_turns}: {phase}" if turn else phase)
            + (f" ({model})" if model else ""),
            mode=mode if turn else "",
            baseline=baseline,
            model=model,
        )
        extra = {"model": model} if model else {}
        self.record("progress", turn=turn, phase=phase, percentage=percentage, **extra)
        if self._progress is not None:
            try:
                self._progress(event)
            except Exception:  # a broken progress sink must not end the session
                pass
        return event

    def model_progress(self, call: CallProgress) -> None:
        """The running model call's progress, on the phase that asked it."""
        if self._phase is not None:
            self.progress(**self._phase, model=call.describe())

    def session_end(self, result: DebugResult) -> None:
        """The last record: how the session ended and what it cost."""
        self.record(
            "session_end",
            stop_reason=result.stop_reason,
            error=result.error,
            turns=result.turns,
            mode=result.mode,
            summary=result.summary(),
            chosen_before=result.chosen_before,
            chosen_after=result.chosen_after,
            wider_before=result.wider_before,
            wider_after=result.wider_after,
            explanation=result.explanation,
            diff=result.diff,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            model_calls=result.model_calls,
            seconds=round(result.seconds, 3),
            model_seconds=round(result.model_seconds, 3),
            failed_calls=[call.describe() for call in result.failed_calls],
        )

    def close(self) -> None:
        self.transcript.close()
