"""The session's uses of the edit search (edit_search.py): localization and the search on the
function as it is, and the search on a model's near miss.

A near miss is a candidate that passes more chosen tests than the original but not all: the
model found the place, a small edit may finish it. The search then runs on the candidate's
source (its changed lines first, then the lines its own runs point at), once per session at
most twice, and what it finds is judged as any fix is (fresh run, chosen and wider tests, the
wider tests that passed on the original must still pass).

The search's own partial fix (judge/partials.py, `Partial`: an edit that fixes some failing
tests and breaks none, a bug at two places) is searched on the same way, and when that search
finishes nothing, it is the version the model starts from (`partial_start`).
"""

from __future__ import annotations

import difflib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine.answers.candidate import Candidate
from selfdebug.server.engine.evidence import Evidence
from selfdebug.server.engine.judge.context import Preference, SearchContext, SearchSettings
from selfdebug.server.engine.judge.judge import Judgement
from selfdebug.server.engine.judge.partials import partial_holds
from selfdebug.server.engine.judge.verify import VerifiedFix
from selfdebug.server.engine.modes import strategy_of
from selfdebug.server.engine.overfitting import ExpectedValues
from selfdebug.server.engine.search import edit_search as search
from selfdebug.server.engine.target import TargetFunction, locate
from selfdebug.server.runner.results import RunResult

if TYPE_CHECKING:
    from selfdebug.server.engine.types import DebugRequest
    from selfdebug.server.runner import ProjectRunner

NEAR_MISS_SEARCHES = 2  # per session


class SearchHost(Protocol):
    """What the search needs of the running session."""

    request: DebugRequest
    file: Path
    source: str
    target: TargetFunction
    chosen_before: RunResult | None
    evidence: Evidence  # chosen_before's failing tests, read once (engine/evidence.py)
    wider_before: RunResult | None
    cancel: CancelToken
    turn: int
    near_misses: int  # near-miss searches run so far
    test_values: ExpectedValues  # what the failing tests compared with (overfitting.py)

    @property
    def runner(self) -> ProjectRunner: ...

    def emit(self, phase: str, fraction: float = 0.0) -> None: ...

    def record(self, event: str, **fields: Any) -> None: ...

    def run_tests(
        self, nodeids: list[str], source: str, *, label: str, probes: bool = False
    ) -> RunResult: ...

    def remaining_s(self) -> float | None: ...

    def preference_for(self, context: SearchContext) -> Preference | None:
        """Who chooses among fixes the tests cannot tell apart (the model, in `auto`)."""
        ...


def context_for(
    host: SearchHost,
    *,
    source: str | None = None,
    target: TargetFunction | None = None,
    chosen_before: RunResult | None = None,
    evidence: Evidence | None = None,
    first_lines: list[int] | None = None,
    found_on: str = "",
) -> SearchContext:
    """The search's view of the session: the function as it is, or another version of it
    (`chosen_before` its run, `evidence` that run's, read once by the caller)."""
    request = host.request
    remaining = host.remaining_s()

    def run_tests(ids: list[str], text: str, label: str) -> RunResult:
        return host.run_tests(ids, text, label=label)

    chosen = chosen_before or host.chosen_before
    assert chosen is not None
    if chosen_before is None:
        evidence = host.evidence
    context = SearchContext(
        runner=host.runner,
        file=host.file,
        source=source if source is not None else host.source,
        target=target or host.target,
        chosen=list(request.target.tests),
        wider=list(request.target.wider_tests),
        chosen_before=chosen,
        evidence=evidence if evidence is not None else Evidence.of(chosen),
        wider_before=host.wider_before,
        cancel=host.cancel,
        deadline=None if remaining is None else time.monotonic() + remaining,
        run_tests=run_tests,
        progress=host.emit,
        event=host.record,
        settings=SearchSettings(
            max_edits=request.budget.max_edits,
            crosscheck=request.budget.generated_inputs > 0,
            generated_inputs=request.budget.generated_inputs,
            record_candidates=request.reporting.record_candidates,
        ),
        first_lines=first_lines or [],
        found_on=found_on,
        expected_values=host.test_values,
    )
    context.prefer = host.preference_for(context)
    return context


def changed_lines(before: TargetFunction, code: str, first_line: int) -> list[int]:
    """File lines (of the version whose function text is `code`, starting at file line
    `first_line`) that differ from `before`'s text."""
    matcher = difflib.SequenceMatcher(None, before.code.splitlines(), code.splitlines())
    lines: list[int] = []
    for tag, _a1, _a2, b1, b2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            lines += [first_line + n for n in range(b1, b2)]
    return lines


def localize_and_search(
    host: SearchHost, searching: bool, passthrough: tuple[type[BaseException], ...]
) -> search.SearchStep | None:
    """Localization, and with `searching` the edit search, on the function as it is; None
    when skipped (a test timed out in the baseline: it would again) or failed in a model mode
    (localization is evidence there, never fatal). `passthrough`: what stops the session."""
    runs = [host.chosen_before, host.wider_before]
    model_mode = strategy_of(host.request.mode).uses_model
    if model_mode and any(r is not None and r.timed_out for r in runs):
        host.record("localization", skipped="a test timed out in the baseline")
        return None
    try:
        return search.search_step(context_for(host), search=searching)
    except passthrough:
        raise
    except Exception as error:
        if not model_mode:
            raise
        host.record("search_failed", error=f"{type(error).__name__}: {error}")
        return None


def near_miss_fix(
    host: SearchHost,
    candidate: Candidate,
    run: RunResult | None,
    passthrough: tuple[type[BaseException], ...],
) -> VerifiedFix | None:
    """`auto`: the edit search on a model's candidate that passes more chosen tests than the
    original but not all (the caller knows it improved), at most NEAR_MISS_SEARCHES a
    session; the fix it finds, or None. A failure leaves the model's turn as it was."""
    request = host.request
    if not strategy_of(request.mode).search_then_model(request) or run is None:
        return None
    if host.near_misses >= NEAR_MISS_SEARCHES or candidate.new_source is None:
        return None
    host.near_misses += 1
    try:
        found_on = f"the model's candidate of turn {host.turn}"
        version = Version.of(host, candidate.new_source, run, found_on)
        step = search_on_version(host, version, "near_miss_search") if version else None
    except passthrough:
        raise
    except Exception as error:
        host.record("search_failed", error=f"{type(error).__name__}: {error}")
        return None
    return step.fix if step is not None else None


@dataclass(frozen=True)
class Version:
    """Another version of the session's function: a model's near miss or the search's partial
    fix, which a second search (or the model's local edits) starts from."""

    source: str  # the file's text with it
    target: TargetFunction
    run: RunResult  # its chosen tests' run
    evidence: Evidence  # that run's failing tests, read once
    changed: list[int]  # its lines that differ from the original (file lines of this version)
    found_on: str  # what it is, for `found_by` ("the search's partial edit (...)")

    @classmethod
    def of(cls, host: SearchHost, new_source: str, run: RunResult, found_on: str) -> Version | None:
        """None when its function cannot be found again in `new_source`."""
        try:
            target = locate(new_source, host.target.qualname)
        except Exception:
            return None
        changed = changed_lines(host.target, target.code, target.start_line + 1)
        return cls(new_source, target, run, Evidence.of(run), changed, found_on)

    def context(self, host: SearchHost) -> SearchContext:
        """The search's view of this version: its changed lines first."""
        return context_for(
            host,
            source=self.source,
            target=self.target,
            chosen_before=self.run,
            evidence=self.evidence,
            first_lines=self.changed,
            found_on=self.found_on,
        )


def search_on_version(host: SearchHost, version: Version, event: str) -> search.SearchStep:
    """The edit search on another version of the function (a model's near miss or the search's
    partial fix), the lines it changed first (numbered in that version)."""
    host.record(event, passed=f"{version.run.passed}/{version.run.total}", lines=version.changed)
    return search.search_step(version.context(host), search=True)


@dataclass
class PartialStart:
    """The search's partial fix, run afresh: what the model is shown instead of the original,
    and where its local edits start (a bug at two places: the search fixed one)."""

    code: str  # the function with the partial edit
    candidate: Candidate
    run: RunResult
    version: Version | None  # None when its function could not be found again
    second: search.SearchStep | None  # the search on it; None when it failed

    @property
    def fix(self) -> VerifiedFix | None:
        """The second search finished it."""
        return self.second.fix if self.second is not None else None


_MADE_BY = {"search": "edit search", "model": "model local edit"}
_WHOSE = {"search": "the search's", "model": "the model's"}


def partial_start(
    host: SearchHost,
    step: Judgement,
    passthrough: tuple[type[BaseException], ...],
    by: Literal["search", "model"] = "search",
) -> PartialStart | None:
    """`auto`/`search`: the best partial edit of `step` (made by `by`: the search's, or the
    model's local edits'), kept only when a fresh run confirms it (more chosen tests pass,
    none that passed fails); then the search once more on it, its changed line first. None
    when there is no partial edit or it does not hold up."""
    partial = step.partial
    before = host.chosen_before
    if partial is None or before is None or not host.request.auto_search:
        return None
    new_source = partial.edit.new_source(host.source, host.target)
    run = host.run_tests(list(host.request.target.tests), new_source, label="search-partial")
    kept = partial_holds(run, before)
    passed = f"{run.passed}/{run.total}"
    host.record("search_partial_run", edit=partial.describe(), passed=passed, kept=kept)
    if not kept or run.all_passed:
        return None  # all passing: the fresh run disagrees with the search process
    candidate = Candidate(
        reply="",
        code=partial.edit.code,
        new_source=new_source,
        explanation=f"{_MADE_BY[by]} (part of a fix): {partial.describe()}",
    )
    found_on = f"{_WHOSE[by]} partial edit ({partial.edit.describe()})"
    version = Version.of(host, new_source, run, found_on)
    second = None
    if version is not None:
        try:
            second = search_on_version(host, version, "partial_search")
        except passthrough:
            raise
        except Exception as error:
            host.record("search_failed", error=f"{type(error).__name__}: {error}")
    if partial.edit.outside is not None and (second is None or second.fix is None):
        return None  # the model edits the function alone: it cannot start from a constant's
    return PartialStart(partial.edit.code, candidate, run, version, second)
