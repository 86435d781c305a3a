"""Repair where the ranking points: the usual session on the top suspects in order, under one
time budget, until one gives a fix (issue 35 item 3).

Why a step of its own: the CLI (`selfdebug fix --test`) and the editor (a code action on a test
function) run the same walk; each says how to build a suspect's request and how to run it (its
own progress, runner and cancel), and this module decides which suspect comes next and when to
stop.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from selfdebug.server.engine.modes import model_stage, search_stage, strategy_of
from selfdebug.server.engine.request import MAX_CHOSEN, RequestError, choose_tests
from selfdebug.server.engine.suspects.localize import FailureLocalization
from selfdebug.server.engine.suspects.rank import Suspect
from selfdebug.server.engine.types import DEFAULT_TIME_BUDGET_S, DebugRequest, DebugResult

if TYPE_CHECKING:
    from selfdebug.server.runner import ProjectRunner

SUSPECTS_TRIED = 3  # sessions at most, best suspect first
# An `auto` walk's model steps (minutes a suspect on 2 cores, against seconds for the search)
# run on the first suspect only: the one the ranking puts first is most often the case's function
# (docs/bench/localize-from-failure/), and every other suspect had its search.
MODEL_SUSPECTS = 1


@dataclass
class SuspectAttempt:
    suspect: Suspect
    why: str  # "suspect 1 of 5: 4/4 failing tests run it, 2/212 passing do"
    request: DebugRequest | None = None  # the session's, once built
    result: DebugResult | None = None
    error: str = ""  # why no session ran on it (its request could not be built)
    stage: str = ""  # the walk's stage ("edit search", "model", ...); "": the whole mode
    # A fix of two functions: the earlier attempt whose partial edit (some failing tests
    # passed) this session searched beside; its edit is part of this fix.
    base: SuspectAttempt | None = None
    refused: str = ""  # why the walk refused its session's fix (`own_tests_refusal`)

    def refuse(self, why: str) -> None:
        """The session's fix stops being one: kept as its best candidate, with why."""
        assert self.result is not None
        self.refused = why
        refused = [*self.result.refused, f"the walk: {why}"]
        self.result = dataclasses.replace(
            self.result, stop_reason="no_improvement", refused=refused
        )

    def unchecked(self, why: str) -> None:
        """The session's fix stays one, with what could not be checked as a warning."""
        assert self.result is not None
        warnings = [*self.result.warnings, f"the walk: {why}"]
        self.result = dataclasses.replace(self.result, warnings=warnings)

    def fix_files(self) -> dict[Path, str]:
        """The files the fix writes (path -> new text): this function's, and for a fix of two
        functions in two files the first one's as well (in one file, this text holds both)."""
        files: dict[Path, str] = {}
        for attempt in (self.base, self):
            if attempt and attempt.request and attempt.result and attempt.result.fixed_file:
                files[attempt.request.target.file] = attempt.result.fixed_file
        return files

    def functions(self) -> str:
        """ "`b`", or "`a` and `b`" for a fix of two functions."""
        names = [a.suspect.qualname for a in (self.base, self) if a is not None]
        return " and ".join(f"`{name}`" for name in names)


# Which second functions a fix of two may take: a front end that delivers one document's edits
# only (the editors' review of a proposal) asks for "same file".
Pairs = Literal["no", "same file", "any file"]

SUSPECT_TESTS = 20  # failing tests a suspect's session is given at most


def failing_tests_for(found: FailureLocalization, suspect: Suspect) -> list[str]:
    """The tests a suspect's session must make pass: the given failing tests, then the other
    failing tests beside them (their files) that run the suspect. Without those, a fix of the
    one case given passes and the same bug stays on its siblings (a parametrized test's other
    cases)."""
    return list(dict.fromkeys([*found.failing, *suspect.failing_tests]))[:SUSPECT_TESTS]


class OutOfTime(Exception):
    """The walk's budget ran out before a fix could be checked (`own_tests_refusal`)."""


def own_tests_refusal(
    attempt: SuspectAttempt,
    runner: ProjectRunner,
    root: Path,
    left_s: float | None = None,
) -> str:
    """Why the walk refuses `attempt`'s fix: tests that exercise its function, as discovery
    finds them when the function is given, pass on the code as it is and fail with the fix;
    "" when none does (or none is found). A session from the failure is judged by the failing
    tests and their files, and an edit that passes them by breaking what the function's own
    tests check passes there (a test helper in the package made to accept anything). Checked
    once a fix, not for every edit: beside a single failing test, hundreds of edits pass, and
    running more tests for each made a walk minutes longer. Discovery runs in `runner`.

    `left_s`: the walk's time left (None: no budget); discovery and both runs stay within it,
    and OutOfTime says the check could not finish (a run cut short says nothing of the fix)."""
    from selfdebug.server.runner.discover_exec import DEFAULT_BUDGET_S

    deadline = None if left_s is None else time.monotonic() + left_s

    def left() -> float | None:
        if deadline is None:
            return None
        if (remaining := deadline - time.monotonic()) <= 0:
            raise OutOfTime("the time budget was spent")
        return remaining

    suspect = attempt.suspect
    limit = left()
    try:
        file = root / suspect.file
        own = choose_tests(file, suspect.qualname, root, cwd=root, runner=runner,
                           discovery_s=None if limit is None else min(DEFAULT_BUDGET_S, limit),
                           ).tests  # fmt: skip
        own = own[:MAX_CHOSEN]
    except RequestError:
        return ""
    # The session ran its wider tests on both (most often the same files): its runs answer.
    before = runner.run(own, timeout_s=left(), reuse=True)
    after = runner.run(own, overrides=attempt.fix_files(), timeout_s=left(), reuse=True)
    if deadline is not None and (before.timed_out or after.timed_out):
        left()  # cut by the budget: OutOfTime; else a test's own hang, which the fix may be
    broken = after.no_longer_passing(before)
    if not broken:
        return ""
    shown = ", ".join(broken[:3]) + (f" (+{len(broken) - 3})" if len(broken) > 3 else "")
    return (
        f"the fix breaks {len(broken)} of the {len(before.tests)} tests that exercise "
        f"`{suspect.qualname}`: {shown}"
    )


def why_chosen(
    found: FailureLocalization, number: int, attempts: Sequence[SuspectAttempt] = ()
) -> str:
    suspect = found.suspects[number - 1]
    why = f"suspect {number} of {len(found.suspects)}: {suspect.describe()}"
    gain = search_evidence(attempts).get(suspect.target, 0)
    return f"{why}; {_made_pass(gain)} here" if gain else why


def repair_suspects(
    found: FailureLocalization,
    build: Callable[[Suspect], DebugRequest],
    run: Callable[[Suspect, DebugRequest], DebugResult],
    *,
    tried: int = SUSPECTS_TRIED,
    model_tried: int = MODEL_SUSPECTS,
    budget_s: float | None = DEFAULT_TIME_BUDGET_S,
    on_start: Callable[[SuspectAttempt], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
    pairs: Pairs = "any file",
    vet: Callable[[SuspectAttempt, float | None], str] | None = None,
) -> list[SuspectAttempt]:
    """The sessions on `found`'s top suspects, best first, until one fixes the failure, one is
    cancelled, or the budget is spent; each session gets what is left of it as its own time
    budget. An `auto` walk goes cheapest first: the edit search (no model, seconds) on every
    suspect, then the model's steps on the first `model_tried`, best first; so the second
    suspect's one-token fix is not kept waiting behind minutes of model calls on the first (and
    the model goes first where the search made some failing tests pass). When the search made
    some failing tests pass in one function and fixed none, it searches the other suspects with
    that partial edit in place (those `pairs` allows): a fix may need two functions. `build` raises
    RequestError when a suspect cannot be debugged (the next one is tried); `run` runs a
    suspect's request; `vet` says why a session's fix is refused ("": kept; the walk goes on
    after a refused one), given the time left (it raises OutOfTime when that is too little: the
    fix is kept, unchecked, with a warning). The last attempt with a result is the one to
    report."""
    started = clock()
    attempts: list[SuspectAttempt] = []
    built: dict[int, DebugRequest | str] = {}  # suspect number -> its request, or why none
    for stage in (_SEARCH, _PAIR, _MODEL):
        base = _pair_base(attempts) if stage == _PAIR and pairs != "no" else None
        if stage == _PAIR and base is None:
            continue
        for number, suspect in _order(found.suspects[:tried], attempts, stage):
            if number not in built:
                try:
                    built[number] = build(suspect)
                except RequestError as error:
                    built[number] = str(error)
            request = built[number]
            if stage == _PAIR and (
                isinstance(request, str)
                or not _searches(request)
                or base is None
                or suspect.target == base.suspect.target
                or (pairs == "same file" and suspect.file != base.suspect.file)
            ):
                continue  # cannot run, no search in its mode, the partial fix's own, elsewhere
            if stage == _MODEL and (
                isinstance(request, str)
                or not _staged(request)
                or sum(a.stage == _MODEL for a in attempts) >= model_tried
            ):
                continue  # ran whole in the first stage, cannot run, or past the model's few
            attempt = SuspectAttempt(suspect, why_chosen(found, number, attempts), base=base)
            if isinstance(request, str):
                attempt.error = request
                attempts.append(attempt)
                continue
            left = None if budget_s is None else budget_s - (clock() - started)
            if left is not None and left <= 0:
                return attempts
            attempts.append(attempt)
            if base is not None:
                attempt.stage = stage
                attempt.why += f"; beside the edit in `{base.suspect.qualname}`"
                request = _beside(request, base)
            elif _staged(request):
                attempt.stage = stage
                request = search_stage(request) if stage == _SEARCH else model_stage(request)
            own = request.budget.time_budget_s
            budget = left if own is None or left is None else min(own, left)
            attempt.request = dataclasses.replace(
                request,
                target=dataclasses.replace(request.target, tests_found_by=attempt.why),
                budget=dataclasses.replace(request.budget, time_budget_s=budget),
            )
            if on_start is not None:
                on_start(attempt)
            attempt.result = run(suspect, attempt.request)
            if attempt.result.success and vet is not None:
                _vet(attempt, vet, None if budget_s is None else budget_s - (clock() - started))
            if attempt.result.success or attempt.result.stop_reason == "cancelled":
                return attempts
    return attempts


_SEARCH, _PAIR, _MODEL = "edit search", "edit search beside a partial fix", "model"


def _vet(
    attempt: SuspectAttempt, vet: Callable[[SuspectAttempt, float | None], str], left: float | None
) -> None:
    """`attempt`'s fix refused when `vet` says why; kept with a warning when the budget left
    no time to check it (the walk ends with what it has)."""
    try:
        if left is not None and left <= 0:
            raise OutOfTime("the time budget was spent")
        why = vet(attempt, left)
    except OutOfTime as spent:
        attempt.unchecked(f"not run with the tests of `{attempt.suspect.qualname}`: {spent}")
        return
    if why:
        attempt.refuse(why)


def _searches(request: DebugRequest) -> bool:
    return strategy_of(request.mode).runs_search(request)


def _pair_base(attempts: Sequence[SuspectAttempt]) -> SuspectAttempt | None:
    """The search's partial fix to build on: the edit that made the most failing tests pass
    without breaking a wider test that passed before; None when no search made any pass."""
    bases = [
        a
        for a in attempts
        if a.stage in (_SEARCH, "")
        and a.request is not None
        and _searches(a.request)
        and a.result is not None
        and a.result.fixed_file is not None
        and not a.result.success
        and _gain(a) > 0
        and not _breaks_wider(a.result)
    ]
    return max(bases, key=_gain, default=None)


def _breaks_wider(result: DebugResult) -> bool:
    before, after = result.wider_before, result.wider_after
    return before is not None and after is not None and after.passed < before.passed


def _beside(request: DebugRequest, base: SuspectAttempt) -> DebugRequest:
    """`request` as an edit search under `base`'s partial edit, judged by both sessions' tests:
    in the same file its text is where this session edits; in another, every run sees it."""
    assert base.request is not None and base.result is not None
    edited = base.result.fixed_file
    assert edited is not None
    tests = list(dict.fromkeys([*base.request.target.tests, *request.target.tests]))
    target = dataclasses.replace(request.target, tests=tests)
    if base.request.target.file == request.target.file:
        target = dataclasses.replace(target, source_override=edited)
    else:
        pinned = {**request.target.pinned_files, base.request.target.file: edited}
        target = dataclasses.replace(target, pinned_files=pinned)
    return dataclasses.replace(search_stage(request), target=target)


def _order(
    suspects: list[Suspect], attempts: list[SuspectAttempt], stage: str
) -> list[tuple[int, Suspect]]:
    """The suspects (numbered by rank) in the order a stage tries them: by rank, except that
    the model goes first to those where the search made some failing tests pass."""
    numbered = list(enumerate(suspects, 1))
    if stage == _SEARCH:
        return numbered
    gained = search_evidence(attempts)
    return sorted(numbered, key=lambda pair: -gained.get(pair[1].target, 0))


def search_evidence(attempts: Sequence[SuspectAttempt]) -> dict[str, int]:
    """Per suspect (its target), how many more of its failing tests passed with the best edit
    its session found than without: a small edit that makes a failing test pass points at the
    fault (mutation-based localization: Metallaxis, MUSE). Suspects without gain are absent;
    a search beside another function's edit is not counted (its gain is the pair's)."""
    gained: dict[str, int] = {}
    for attempt in attempts:
        if gain := _gain(attempt):
            target = attempt.suspect.target
            gained[target] = max(gained.get(target, 0), gain)
    return gained


def _gain(attempt: SuspectAttempt) -> int:
    """How many more of its failing tests passed with its session's best edit than without;
    0 for a session beside another function's edit (its gain is the pair's) and for a
    refused fix."""
    result = attempt.result
    if result is None or result.chosen_after is None or attempt.base is not None:
        return 0
    if attempt.refused:
        return 0  # its edit passed by breaking the function's own tests: no evidence
    return max(0, result.chosen_after.passed - result.chosen_before.passed)


def ranked_by_evidence(
    suspects: Sequence[Suspect], attempts: Sequence[SuspectAttempt]
) -> list[Suspect]:
    """The ranking once the edit search has run: the suspects where its edits made the most
    failing tests pass first, then the rest in the spectrum's order."""
    gained = search_evidence(attempts)
    return sorted(suspects, key=lambda s: -gained.get(s.target, 0))


def evidence_table(
    found: FailureLocalization, attempts: Sequence[SuspectAttempt], k: int = 5
) -> list[str]:
    """The ranking again once the sessions' edits count, as the CLI prints it; nothing when no
    edit made a failing test pass."""
    gained = search_evidence(attempts)
    if not gained:
        return []
    rows = [
        f"  {i}. {s.target}: "
        + (_made_pass(gained[s.target]) if s.target in gained else s.describe())
        for i, s in enumerate(ranked_by_evidence(found.suspects, attempts)[:k], 1)
    ]  # fmt: skip
    return ["Suspects once the edits count:", *rows]


def _made_pass(gain: int) -> str:
    return f"an edit made {gain} more failing test{'s' if gain != 1 else ''} pass"


def _staged(request: DebugRequest) -> bool:
    """An `auto` session that starts with the edit search runs as two stages of the walk."""
    return strategy_of(request.mode).search_then_model(request)


def reported(attempts: list[SuspectAttempt]) -> SuspectAttempt | None:
    """The attempt to show: the fix, else the last session that ran."""
    ran = [a for a in attempts if a.result is not None]
    return next((a for a in ran if a.result and a.result.success), ran[-1] if ran else None)
