"""What the session hands the generators (the edit search, the model's local edits) and the
judge: the function, its tests and their runs before any change, and the session's limits.

One value for both, since the judge reads nearly all of it (the tests to run, the runs to
compare with, the deadline, the transcript) and a generator only adds where it looks
(`first_lines`) and how many candidates it makes (`SearchSettings.max_edits`, `top_lines`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine.evidence import Evidence
from selfdebug.server.engine.judge.survivors import Survivor
from selfdebug.server.engine.overfitting import NO_EXPECTED_VALUES, ExpectedValues
from selfdebug.server.engine.target import TargetFunction
from selfdebug.server.runner.results import RunResult

if TYPE_CHECKING:
    from selfdebug.server.runner import ProjectRunner


@dataclass
class SearchSettings:
    max_edits: int = 300  # candidates tried at most
    top_lines: int = 8  # suspicious lines edited
    stop_after: int = 3  # full passes that end the search early
    crosscheck: bool = True  # survivors run against each other on generated inputs
    generated_inputs: int = 200
    min_candidate_timeout_s: float = 0.5  # per candidate, all its tests together
    max_candidate_timeout_s: float = 5.0
    record_candidates: bool = False  # DebugRequest.record_candidates


# survivors the tests cannot tell apart -> the one to propose and why (SearchContext.prefer)
# For each of some function texts, the group of survivors (an index into the groups) it behaves
# like on every generated input, or None: how a model's answer that is no survivor still votes.
BehaviourMatch = Callable[[Sequence[str]], list["int | None"]]
# (each group: survivors that behave alike; a match for other texts) -> the survivor to propose
# and why, or None
Preference = Callable[[Sequence[Sequence[Survivor]], BehaviourMatch], "tuple[Survivor, str] | None"]

ProgressFn = Callable[[str, float], None]
EventFn = Callable[..., object]


def nothing(*_args: Any, **_kwargs: Any) -> None:
    return None


@dataclass
class SearchContext:
    """What the session hands over: the function, its tests and the session's limits."""

    runner: ProjectRunner
    file: Path
    source: str
    target: TargetFunction
    chosen: list[str]
    wider: list[str]
    chosen_before: RunResult
    evidence: Evidence  # chosen_before's failing tests, read once (engine/evidence.py)
    wider_before: RunResult | None
    cancel: CancelToken
    deadline: float | None  # time.monotonic() value; None: no time budget
    run_tests: Callable[[list[str], str, str], RunResult]  # (nodeids, file text, label)
    progress: ProgressFn = nothing
    event: EventFn = nothing  # transcript
    settings: SearchSettings = field(default_factory=SearchSettings)
    first_lines: list[int] = field(default_factory=list)  # edited before the suspicious lines
    found_on: str = ""  # what the edits change, for `found_by` ("the model's candidate")
    expected_values: ExpectedValues = NO_EXPECTED_VALUES  # refuses edits that write them in
    # survivors the tests cannot tell apart -> the one to propose and why (the model's vote,
    # model_edits/preference.py); None: the rules of verdicts.py decide alone
    prefer: Preference | None = None


def left(deadline: float | None) -> float | None:
    """Seconds to `deadline` (at least one), or None without one."""
    return None if deadline is None else max(1.0, deadline - time.monotonic())


def time_left(deadline: float | None) -> float | None:
    """Seconds to `deadline` (0 or less once past: a step that needs time skips), or None
    without one."""
    return None if deadline is None else deadline - time.monotonic()
