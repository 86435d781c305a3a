"""Candidates run on the tests in batches, many per test process (server/runner/search_runner.py).

`Judging` is what every candidate is judged by, whoever made it: the chosen tests, the wider
tests that passed on the original, and which chosen tests failed there (run first, since they
reject most candidates). `evaluate` runs the candidates FIRST_BATCH then BATCH per process
(progress "tried 140/300 edits" between batches; the time budget and cancel stop a batch at
once, by killing its process) until enough pass.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine.judge.context import ProgressFn, SearchContext, SearchSettings, nothing
from selfdebug.server.engine.judge.survivors import passes
from selfdebug.server.engine.search.edits import Edit
from selfdebug.server.runner.search_runner import SearchRunner, Verdict

SearchStop = Literal["found", "exhausted", "cancelled", "time_budget", "error", "skipped"]
FIRST_BATCH = 40  # a first answer (and progress) soon; later batches are larger
BATCH = 150


@dataclass(frozen=True)
class Judging:
    """What every candidate (the search's edits, the model's local edits) is judged by: the
    chosen tests, the wider tests that passed on the original, and which failed before."""

    wider: list[str]  # the wider tests that are not chosen ones
    must_pass: list[str]  # chosen, and the wider ones that passed on the original
    wider_passed: set[str]  # requested ids of wider tests that passed on the original
    failing_before: list[str]  # chosen tests that failed on the original
    passed_before: set[str]  # chosen tests that passed on the original

    @classmethod
    def of(cls, context: SearchContext) -> Judging:
        before = context.wider_before.tests if context.wider_before else []
        wider_passed = {t.nodeid for t in before if t.ok and t.nodeid not in context.chosen}
        return cls(
            wider=[t for t in context.wider if t not in context.chosen],
            must_pass=list(dict.fromkeys(context.chosen + sorted(wider_passed))),
            wider_passed=wider_passed,
            failing_before=[t.nodeid for t in context.chosen_before.tests if not t.ok],
            passed_before={t.nodeid for t in context.chosen_before.tests if t.ok},
        )


@dataclass
class Evaluation:
    """What judging the edits came to (see `evaluate`)."""

    verdicts: dict[int, Verdict] = field(default_factory=dict)  # by edit index
    stop: SearchStop = "exhausted"
    error: str = ""
    chosen_ids: list[str] = field(default_factory=list)  # as collected
    wider_ids: list[str] = field(default_factory=list)
    unsteady: set[str] = field(default_factory=set)  # wider tests failing on a re-run, unchanged

    def extend(self, more: Evaluation, offset: int = 0) -> None:
        """`more`'s verdicts added, numbered from `offset` (its edits follow these in one list)."""
        self.verdicts.update({offset + i: v for i, v in more.verdicts.items()})
        self.chosen_ids = more.chosen_ids or self.chosen_ids
        self.wider_ids = more.wider_ids or self.wider_ids
        self.unsteady |= more.unsteady
        self.stop, self.error = more.stop, more.error or self.error


def evaluate(
    searcher: SearchRunner,
    edits: Sequence[Edit],
    chosen: Sequence[str],
    wider: Sequence[str],
    *,
    first_line: int,
    must_pass: Sequence[str],
    settings: SearchSettings,
    cancel: CancelToken | None = None,
    deadline: float | None = None,
    progress: ProgressFn = nothing,
    failing_first: Sequence[str] = (),
    start: int = 0,
    stop_after: int | None = None,
) -> Evaluation:
    """Judge `edits` from `start` in batches, FIRST_BATCH then BATCH per test process, until
    `stop_after` pass (settings.stop_after by default; 0: judge them all)."""
    found = Evaluation()
    stop_after = settings.stop_after if stop_after is None else stop_after
    first = start
    full = 0
    progress(f"tried 0/{len(edits)} edits", 0.0)
    while start < len(edits):
        if cancel is not None and cancel.cancelled:
            found.stop = "cancelled"
            return found
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            found.stop = "time_budget"
            return found
        size = FIRST_BATCH if start == first else BATCH
        batch = edits[start : start + size]
        codes = [e.candidate(start + i, first_line) for i, e in enumerate(batch)]
        judged = searcher.judge(
            codes,
            chosen,
            wider,
            cancel=cancel,
            timeout_s=remaining,
            stop_after=max(0, stop_after - full),
            per_candidate={
                "min_timeout_s": settings.min_candidate_timeout_s,
                "max_timeout_s": settings.max_candidate_timeout_s,
            },
            must_pass=must_pass,
            failing_first=failing_first,
        )
        found.verdicts.update(judged.verdicts)
        found.chosen_ids = judged.chosen or found.chosen_ids
        found.wider_ids = judged.wider or found.wider_ids
        found.unsteady |= judged.unsteady
        full += sum(passes(v, must_pass, found.unsteady) for v in judged.verdicts.values())
        start += len(batch)
        tried = len(found.verdicts)
        progress(f"tried {first + tried}/{len(edits)} edits", (first + tried) / max(1, len(edits)))
        if judged.cancelled:
            found.stop = "cancelled"
            return found
        if judged.out_of_time:
            found.stop = "time_budget"
            return found
        if judged.error:
            found.stop, found.error = "error", judged.error
            return found
        if stop_after and full >= stop_after:
            found.stop = "found"
            break
    return found
