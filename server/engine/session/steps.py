"""The steps of a session before the model's turns (turns.py): the baseline run, localization
(with the edit search, `EditSearch`) and the model's local edits. Each is a small object with
one method, `run(context) -> StopReason | None` (pipeline.Step); which of them a mode runs is
plan.py's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from selfdebug.server.engine import feedback
from selfdebug.server.engine.evidence import Evidence
from selfdebug.server.engine.model_calls.prompting import ShownTest
from selfdebug.server.engine.model_edits import step as model_edits
from selfdebug.server.engine.overfitting import expected_values, passing_test_sources
from selfdebug.server.engine.search import host as search_host
from selfdebug.server.engine.session.pipeline import PASSTHROUGH, Stop
from selfdebug.server.engine.turn import Evaluated
from selfdebug.server.engine.types import StopReason

if TYPE_CHECKING:
    from selfdebug.server.engine.judge.judge import Judgement
    from selfdebug.server.engine.search.edit_search import SearchStep
    from selfdebug.server.engine.session.context import RunContext


@dataclass(frozen=True)
class Baseline:
    """The session's start: the chosen and wider tests on the original, read once (the
    failing tests' evidence, the tests shown, the values a fix may not write in)."""

    probe_problem: str = ""  # why probes cannot go in (modes.why_no_probes): recorded
    name: ClassVar[str] = "baseline"

    def run(self, context: RunContext) -> StopReason | None:
        request = context.request
        context.recorder.record(
            "session_start",
            file=str(context.file),
            qualname=request.target.qualname,
            requested_mode=request.mode,
            tests=request.target.tests,
            tests_found_by=request.target.tests_found_by,
            wider_tests=len(request.target.wider_tests),
            max_turns=request.budget.max_turns,
            samples=request.model.samples,
            backend=context.backend.name,
            prompt_form=context.backend.prompt_form,
            function_range=[context.target.start_line, context.target.end_line],
            mode_plan=[p.mode for p in context.plan],
        )
        if self.probe_problem:
            context.recorder.record("probe_check", ok=False, reason=self.probe_problem)
        if request.target.tests:
            stop = self._chosen(context)
            if stop is not None:
                return stop
        if request.target.wider_tests:
            context.emit(f"running {len(request.target.wider_tests)} wider tests")
            # Another suspect's session in the same walk ran them on this code: its run answers.
            context.wider_before = context.run_tests(
                request.target.wider_tests, context.source, label="wider", reuse=True
            )
        if context.chosen_before is not None:
            root = Path(request.target.project_root)
            passing = passing_test_sources(root, context.chosen_before, context.wider_before)
            context.test_values = expected_values(context.evidence, context.source, passing)
        return None

    @staticmethod
    def _chosen(context: RunContext) -> StopReason | None:
        request = context.request
        context.emit(f"running {len(request.target.tests)} tests")
        # Localizing from the failure ran these tests on this code already: its run answers.
        before = context.run_tests(
            request.target.tests, context.source, label="baseline", reuse=True
        )
        context.chosen_before = before
        context.evidence = Evidence.of(before)
        tally = f"{before.passed}/{before.total}"
        # What the runner noticed (a plugin the tests need, no pytest-timeout) reaches the user.
        context.warnings.extend(n for n in before.notes if n not in context.warnings)
        context.emit(f"{tally} tests pass before any change", baseline=before)
        if before.error and not before.tests:
            raise Stop("error", f"the tests could not run: {before.error}")
        missing = before.missing(request.target.tests)
        if missing:
            raise Stop(
                "error",
                f"the tests could not run: pytest found no test {', '.join(missing)} "
                "(check the node ids)",
            )
        if before.all_passed:
            return "already_passing"
        context.current_run = before
        ran = [t.nodeid for t in before.tests]
        failing = {t.nodeid for t in before.tests if not t.ok}
        shown = feedback.sources_to_show(Path(request.target.project_root), ran, failing=failing)
        context.tests_shown = [ShownTest(nodeid, source) for nodeid, source in shown]
        return None


@dataclass(frozen=True)
class Localize:
    """Rank the suspicious lines (every mode with tests: shown to the user and the model);
    `EditSearch` tries small edits there too (search/host.py), in the same runs.

    `alone`: the search is the whole mode (`search`): without tests it has nothing to judge an
    edit by (an error), and what it does not fix ends the session."""

    alone: bool = False
    searches: ClassVar[bool] = False
    name: ClassVar[str] = "localize"

    def run(self, context: RunContext) -> StopReason | None:
        if context.chosen_before is None:
            if self.alone:
                raise Stop("error", "mode search needs tests: edits are judged by them")
            return None
        step = search_host.localize_and_search(context, self.searches, PASSTHROUGH)
        context.search_step = step or context.search_step
        if step is not None and step.search is not None:
            context.refused += [f"edit search: {why}" for why in step.search.refused]
        if step is not None and context.adopt(step.fix, step.caveat, step.alternatives):
            return "passed"
        if step is not None and self.searches and _start_from_partial(context, step):
            return "passed"
        context.check()  # cancelled, or the search spent the time budget
        return "no_improvement" if self.alone else None


@dataclass(frozen=True)
class EditSearch(Localize):
    """Localization, then the edit search (`search`, and `auto` before its first model call).

    `auto` searches first because the search costs seconds and a model turn a minute: on
    QuixBugs dev and the first 40 HumanEvalFix dev problems it alone makes many of `auto`'s
    fixes, with no model call (docs/MODES.md, "What `auto` does"; the runs: docs/bench/)."""

    searches: ClassVar[bool] = True
    name: ClassVar[str] = "edit search"


def _start_from_partial(context: RunContext, step: SearchStep) -> bool:
    """The search's partial fix (search_host.partial_start): True when a second search
    on it finished the fix; else, when it holds up, the model starts from it (the best so
    far, shown as the function with its remaining failures)."""
    context.check()
    start = search_host.partial_start(context, step, PASSTHROUGH)
    context.partial = start
    if start is None:
        return False
    if context.adopt(start.fix):
        return True
    _hold(context, start, "edit search (part of a fix)")
    return False


def _hold(context: RunContext, start: search_host.PartialStart, found_by: str) -> None:
    """A partial fix that held up on a fresh run: the best so far, what the model is shown."""
    context.best, context.best_wider = Evaluated(start.candidate, start.run), None
    context.found_by = found_by
    context.current_code, context.current_run = start.code, start.run
    context.fixed_at_turn = context.turn


@dataclass(frozen=True)
class ModelLocalEdits:
    """When the search found no fix: the model's local edits at the suspicious lines
    (model_edits/), on the function as it is or, when the search fixed part of it (a bug at
    two places), on that partial fix; "passed" when one is the fix. When the model's own edits
    fixed part of it, one more round on that (`_near_miss_round`)."""

    name: ClassVar[str] = "model local edits"

    def run(self, context: RunContext) -> StopReason | None:
        step, version = context.search_step, None
        if context.best is not None:  # the search's partial fix: the edits start from it
            start = context.partial
            step = start.second if start is not None else None
            version = start.version if start is not None else None
            if version is None:
                return None
        on = " of the search's partial fix" if version is not None else ""
        found = _local_edits(context, step, version, on)
        if found is None:
            return None
        if _adopted(context, found):
            return "passed"
        if version is None and found.partial is not None:
            return _near_miss_round(context, found)
        return None


def _local_edits(
    context: RunContext,
    step: SearchStep | None,
    version: search_host.Version | None,
    on: str,
) -> Judgement | None:
    """The model's local edits at `step`'s suspicious lines, on `version` of the function
    when given (`on` says which, for the progress line); None when there is no localization,
    the tests cannot choose among `step`'s edits already, or the step failed."""
    if step is None or step.localization is None or step.ambiguous:
        return None
    context.emit(f"model edits at the suspicious lines{on}")
    found = model_edits.for_session(
        context, context.backend, step.localization, context.model.usage, PASSTHROUGH, version
    )
    if found is not None and found.search is not None:
        context.refused += [f"model local edit: {why}" for why in found.search.refused]
    context.check()
    return found


def _adopted(context: RunContext, found: Judgement) -> bool:
    """`found`'s fix taken as the session's, the model's (not the edit search's) mode named."""
    if not context.adopt(found.fix, found.caveat, found.alternatives):
        return False
    context.mode = context.request.mode
    return True


def _near_miss_round(context: RunContext, found: Judgement) -> StopReason | None:
    """One near-miss round (ChatRepair, FLAMES): the model's best partial edit (some failing
    tests pass with it, none that passed fails) run afresh, the search on it, then the model's
    local edits once more on it, localized and prompted by what still fails. A bug at two
    places, or a fix the model wrote half of, is then finished rather than thrown away."""
    start = search_host.partial_start(context, found, PASSTHROUGH, by="model")
    if start is None:
        return None
    context.partial = start
    if context.adopt(start.fix):  # the search on it finished it
        context.mode = context.request.mode
        return "passed"
    _hold(context, start, "model local edit (part of a fix)")
    if start.version is None:
        return None
    context.check()
    again = _local_edits(context, start.second, start.version, " of the model's partial fix")
    return "passed" if again is not None and _adopted(context, again) else None
