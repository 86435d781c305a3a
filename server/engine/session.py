"""One self-debugging session: run the tests, build the mode's feedback, ask the model, check and
run its candidate, and repeat until the chosen tests pass or a stop rule fires.

The loop is the same for every mode; what differs between modes is a strategy in `modes.py`.
Every turn is remembered (`history.py`) and shown to the model, and no prompt is sent twice: when
a prompt or a program repeats, the next prompt says so and the model is sampled with a new seed.

The user's file is never written here: the session works on text and runs every version in the
runner's shadow copy (through `overrides`). The result carries the evidence ("passes N/M chosen,
K/L wider") and a diff the caller may offer to apply.
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfdebug.server.backends.base import Backend, BackendCancelled, BackendError, Completion
from selfdebug.server.cancel import Cancelled, CancelToken
from selfdebug.server.engine import feedback
from selfdebug.server.engine.answers.answer_form import AnswerForm, choose_answer_form
from selfdebug.server.engine.evidence import NO_EVIDENCE, Evidence
from selfdebug.server.engine.history import AttemptLog
from selfdebug.server.engine.judge.context import Preference, SearchContext
from selfdebug.server.engine.model_calls.failed_calls import CallFailed, session_stop
from selfdebug.server.engine.model_calls.model_call import ModelCaller
from selfdebug.server.engine.model_calls.prompting import (
    PromptLibrary,
    PromptVars,
    RenderedPrompt,
    ShownTest,
)
from selfdebug.server.engine.model_edits import step as model_edits
from selfdebug.server.engine.model_edits.preference import model_preference
from selfdebug.server.engine.modes import (
    AUTO_TURNS_WITHOUT_GAIN,
    STEP_MAX_TOKENS,
    STRATEGIES,
    ModeStrategy,
    PlannedMode,
    plan_modes,
    why_no_probes,
)
from selfdebug.server.engine.overfitting import (
    NO_EXPECTED_VALUES,
    ExpectedValues,
    expected_values,
    passing_test_sources,
)
from selfdebug.server.engine.recorder import Recorder
from selfdebug.server.engine.search import host as search_host
from selfdebug.server.engine.session_result import session_result, unlocated_result
from selfdebug.server.engine.target import (
    TargetFunction,
    TargetNotFound,
    TargetUnreadable,
    read_target,
    relative_label,
)
from selfdebug.server.engine.transcript import Transcript, compact_run
from selfdebug.server.engine.turn import Evaluated, guard, take_turn
from selfdebug.server.engine.types import (
    Alternatives,
    DebugRequest,
    DebugResult,
    Mode,
    ProgressCallback,
    StopReason,
)
from selfdebug.server.runner.results import RunResult, nodeid_covers

if TYPE_CHECKING:
    from selfdebug.server.engine.judge.verify import VerifiedFix
    from selfdebug.server.engine.search.edit_search import SearchStep
    from selfdebug.server.runner import ProjectRunner


class _Stop(Exception):
    """Ends the loop with a stop reason (budgets, cancel, errors)."""

    def __init__(self, reason: StopReason, message: str = "") -> None:
        super().__init__(message or reason)
        self.reason: StopReason = reason
        self.message = message


def _missing(nodeids: list[str], run: RunResult) -> list[str]:
    """Requested ids with no result (a parametrized or file/class id matches its items)."""
    seen = [t.nodeid for t in run.tests]
    return [n for n in nodeids if not any(nodeid_covers(n, s) for s in seen)]


class Session:
    """A session on a located function (see `run_session`, which locates it first)."""

    def __init__(
        self,
        request: DebugRequest,
        backend: Backend,
        source: str,
        target: TargetFunction,
        *,
        runner: ProjectRunner | None,
        recorder: Recorder,
        cancel: CancelToken | None,
        started: float,
    ) -> None:
        self.request = request
        self.backend = backend
        self.source = source
        self.target = target
        self._own_runner = runner is None
        self._runner = runner
        self.recorder = recorder
        self.cancel = cancel or CancelToken()
        self.started = started
        prompts = PromptLibrary(request.prompts_dir)
        self.model = ModelCaller(
            backend, prompts, request, self.cancel, self.record, recorder.model_progress
        )
        self.file = Path(request.file).resolve()
        self.label = relative_label(request.file, request.project_root)
        self.turn = 0
        self._probe_problem = why_no_probes(
            request.mode, self.source, target.qualname, request.probe_level
        )
        self.plan: list[PlannedMode] = plan_modes(
            request.mode, has_tests=bool(request.tests), can_probe=not self._probe_problem
        )
        self._plan_step = 0
        self.strategy: ModeStrategy = STRATEGIES[self.plan[0].mode]
        self.mode: Mode = request.mode  # the requested one until the first turn runs
        self.tests_shown: list[ShownTest] = []  # set from the baseline run (failing first)
        self.chosen_before: RunResult | None = None
        self.wider_before: RunResult | None = None
        self.evidence: Evidence = NO_EVIDENCE  # chosen_before's failing tests, read once
        # what the failing tests compared with: a candidate that writes it in is refused
        self.test_values: ExpectedValues = NO_EXPECTED_VALUES
        self.refused: list[str] = []  # candidates refused as overfitting, with why
        self.current_code = target.code
        self.current_run: RunResult | None = None
        self.best: Evaluated | None = None
        self.best_wider: RunResult | None = None
        self.fixed_at_turn: int | None = None
        self.check_error = ""  # why the last answer could not be used
        self.repeat_note = ""  # the last answer or request repeated an earlier one
        self.attempts = AttemptLog(target.code)
        self.warnings: list[str] = []
        self.candidates_checked = 0
        self.runs: dict[tuple[str, str], RunResult] = {}  # (chosen|wider, program) -> result
        self._sample_turn = 0  # the turn whose calls sample (a program repeated the turn before)
        self.search_step: SearchStep | None = None  # issue 13: localization (+ edit search)
        self.partial: search_host.PartialStart | None = None  # the search's partial fix, run
        self.found_by = ""
        self.near_misses = 0  # edit searches run on the model's near misses
        self.fix_caveat = ""  # the proposed search or local edit's caveat (see _adopt)
        self.fix_alternatives: Alternatives | None = None  # the caveat's edits (see _adopt)
        self._told_form: AnswerForm | None = None  # the answer form the transcript last named

    # -- plumbing (also what modes use, see modes.Workbench) -----------------------------------

    @property
    def runner(self) -> ProjectRunner:
        if self._runner is None:
            from selfdebug.server.runner import ProjectRunner, RunnerSettings

            settings = RunnerSettings(test_timeout_s=self.request.test_timeout_s)
            self._runner = ProjectRunner(Path(self.request.project_root), settings)
        return self._runner

    def preference_for(self, context: SearchContext) -> Preference | None:
        """`auto` with the model's local edits on: the model votes among fixes the tests cannot
        tell apart (model_edits/preference.py); elsewhere the search's own rules decide."""
        if self.request.mode != "auto" or self.request.model_edits_s <= 0:
            return None
        return model_preference(
            context, self.backend, self.model.usage, sample=model_edits.sample_hole
        )

    def remaining_s(self) -> float | None:
        if self.request.time_budget_s is None:
            return None
        return self.request.time_budget_s - (time.monotonic() - self.started)

    def _check(self) -> None:
        """Between phases: cancel, then the time and token budgets."""
        self.cancel.raise_if_cancelled()
        remaining = self.remaining_s()
        if remaining is not None and remaining <= 0:
            raise _Stop("time_budget", f"time budget of {self.request.time_budget_s}s spent")
        budget = self.request.token_budget
        if budget is not None and self.model.tokens_used >= budget:
            raise _Stop("token_budget", f"token budget of {budget} spent")

    def _max_turns(self) -> int:
        if not self.strategy.loops or not self.request.tests:
            return 1
        return max(1, self.request.max_turns)

    def _emit(
        self, phase: str, fraction: float = 0.0, *, baseline: RunResult | None = None
    ) -> None:
        self.recorder.progress(
            turn=self.turn,
            max_turns=1 if not self.strategy.loops else max(1, self.request.max_turns),
            phase=phase,
            fraction=fraction,
            mode=self.strategy.name,
            baseline=baseline,
        )

    def emit(self, phase: str, fraction: float = 0.0) -> None:
        """Progress from a mode's own step (modes.Workbench)."""
        self._emit(phase, fraction)

    def record(self, event: str, **fields: Any) -> None:
        """A transcript record of the current turn."""
        self.recorder.record(event, turn=self.turn, **fields)

    def run_tests(
        self, nodeids: list[str], source: str, *, label: str, probes: bool = False
    ) -> RunResult:
        self._check()
        remaining = self.remaining_s()
        result = self.runner.run(
            list(nodeids),
            overrides={self.file: source},
            probes=probes,
            cancel=self.cancel,
            timeout_s=max(remaining, 1.0) if remaining is not None else None,
        )
        self.record("tests", label=label, probes=probes, result=compact_run(result))
        if result.cancelled or self.cancel.cancelled:
            raise Cancelled(self.cancel.reason or "cancelled")
        return result

    def ask(
        self, step: str, variables: PromptVars, n: int = 1, max_tokens: int | None = None
    ) -> tuple[RenderedPrompt, Completion]:
        """One model call (model_calls/model_call.py); sampled when the turn before repeated a
        program."""
        self._check()
        return self.model.ask(
            step,
            variables,
            n=n,
            max_tokens=max_tokens,
            remaining_s=self.remaining_s(),
            sample=self.turn == self._sample_turn,
            mode=self.strategy.name,
            turn=self.turn,
        )

    def prompt_vars(self, **extra: Any) -> PromptVars:
        run = self.current_run
        failures = ""
        if run is not None and self.strategy.shows_failures:
            failures = feedback.describe_failures(self.evidence_of(run), self.target, self.file)
        return PromptVars(
            name=self.target.name,
            qualname=self.target.qualname,
            file=self.label,
            code=self.current_code.rstrip("\n"),
            signature=self.target.header,
            class_name=self.target.class_name,
            tests=self.tests_shown,
            tally=f"{run.passed}/{run.total}" if run is not None else "",
            failures=failures,
            check_error=self.check_error,
            history=self.attempts.recent(),
            repeat_note=self.repeat_note,
            suspicious=self._suspicious_prompt(),
            search_hint=self._search_hint(),
            turn=self.turn,
            max_turns=self.request.max_turns,
            edit_form=self._answer_form().edit_form,
            **extra,
        )

    def _answer_form(self) -> AnswerForm:
        """The whole function, or SEARCH/REPLACE blocks for a long one (answers/answer_form.py)."""
        budget = self.request.max_tokens or STEP_MAX_TOKENS[self.strategy.fix_step]
        chat = self.backend.prompt_form == "chat"
        form = choose_answer_form(self.current_code, budget, chat=chat)
        if form.edit_form and form != self._told_form:
            self.record("answer_form", why=form.describe())
            self._told_form = form
        return form

    def evidence_of(self, run: RunResult) -> Evidence:
        """The failing tests of `run`: the baseline's as read once, another run's read now."""
        return self.evidence if run is self.chosen_before else Evidence.of(run)

    def source_with(self, code: str) -> str:
        if code == self.target.code:
            return self.source
        return self.target.replace_in(self.source, code)

    # -- one turn ------------------------------------------------------------------------------

    def sample_next_turn(self) -> None:
        """The next turn's calls sample: greedy decoding would give the same answer again."""
        self._sample_turn = self.turn + 1

    # -- memory --------------------------------------------------------------------------------

    def _remember(self, evaluated: Evaluated, verdict: str, kept: bool) -> None:
        """Keep the attempt for the next prompts; a program seen before is said to repeat, and
        the next turn samples instead of asking greedily again."""
        run, code = evaluated.run, evaluated.candidate.code
        if run is None or not code:
            return
        shows = self.strategy.shows_failures
        attempt = self.attempts.add(
            code,
            turn=self.turn,
            mode=self.strategy.name,
            tally=f"{run.passed}/{run.total}",
            feedback=(
                feedback.describe_failures(self.evidence_of(run), self.target, self.file)
                if shows
                else ""
            ),
            verdict=verdict,
            kept=kept,
        )
        self.record("attempt", number=attempt.number, kept=kept, repeat_of=attempt.repeat_of)
        if attempt.repeat_of:
            self.repeat_note = (
                f"Your last answer was the same program as {attempt.repeat_of}, which did not "
                "work; sending it again does not help, so make a different change."
            )
            self.sample_next_turn()

    def _next_mode(self) -> bool:
        """After a turn with no gain, the plan's next mode (auto); False when there is none
        (a plain mode, or the end of auto's plan)."""
        if self._plan_step + 1 >= len(self.plan):
            return False
        self._enter_mode(self._plan_step + 1)
        return True

    def _enter_mode(self, step: int) -> None:
        self._plan_step = step
        planned = self.plan[step]
        self.strategy = STRATEGIES[planned.mode]
        self.mode = planned.mode
        self.recorder.record(
            "mode", turn=self.turn, requested=self.request.mode, mode=self.mode, why=planned.why
        )

    # -- the loop ------------------------------------------------------------------------------

    def _setup(self) -> StopReason | None:
        request = self.request
        self.recorder.record(
            "session_start",
            file=str(self.file),
            qualname=request.qualname,
            requested_mode=request.mode,
            tests=request.tests,
            tests_found_by=request.tests_found_by,
            wider_tests=len(request.wider_tests),
            max_turns=request.max_turns,
            samples=request.samples,
            backend=self.backend.name,
            prompt_form=self.backend.prompt_form,
            function_range=[self.target.start_line, self.target.end_line],
            mode_plan=[p.mode for p in self.plan],
        )
        if self._probe_problem:
            self.recorder.record("probe_check", ok=False, reason=self._probe_problem)
        if request.tests:
            self._emit(f"running {len(request.tests)} tests")
            self.chosen_before = self.run_tests(request.tests, self.source, label="baseline")
            self.evidence = Evidence.of(self.chosen_before)
            tally = f"{self.chosen_before.passed}/{self.chosen_before.total}"
            # What the runner noticed (a plugin the tests need, no pytest-timeout) reaches the user.
            self.warnings.extend(n for n in self.chosen_before.notes if n not in self.warnings)
            self._emit(f"{tally} tests pass before any change", baseline=self.chosen_before)
            if self.chosen_before.error and not self.chosen_before.tests:
                raise _Stop("error", f"the tests could not run: {self.chosen_before.error}")
            missing = _missing(request.tests, self.chosen_before)
            if missing:
                raise _Stop(
                    "error",
                    f"the tests could not run: pytest found no test {', '.join(missing)} "
                    "(check the node ids)",
                )
            if self.chosen_before.all_passed:
                return "already_passing"
            self.current_run = self.chosen_before
            ran = [t.nodeid for t in self.chosen_before.tests]
            failing = {t.nodeid for t in self.chosen_before.tests if not t.ok}
            shown = feedback.sources_to_show(Path(request.project_root), ran, failing=failing)
            self.tests_shown = [ShownTest(nodeid, source) for nodeid, source in shown]
        if request.wider_tests:
            self._emit(f"running {len(request.wider_tests)} wider tests")
            self.wider_before = self.run_tests(request.wider_tests, self.source, label="wider")
        if self.chosen_before is not None:
            root = Path(request.project_root)
            passing = passing_test_sources(root, self.chosen_before, self.wider_before)
            self.test_values = expected_values(self.evidence, self.source, passing)
        searching = request.mode == "search" or (request.mode == "auto" and request.auto_search)
        stop = self._localize_and_search(searching=searching)
        if stop is None and self._local_edits():
            return "passed"
        return stop

    # -- issue 13: fault localization and edit search (the logic is in search/) -------------------

    def _localize_and_search(self, *, searching: bool) -> StopReason | None:
        """Rank the suspicious lines (every mode with tests: shown to the user and the model);
        when `searching` (`search`, and `auto` before its first model call), try small edits
        too (search/host.py).

        `auto` searches first because the search costs seconds and a model turn a minute: on
        QuixBugs dev and the first 40 HumanEvalFix dev problems it alone makes many of `auto`'s
        fixes, with no model call (docs/MODES.md, "What `auto` does"; the runs: docs/bench/)."""
        if self.chosen_before is None:
            if self.request.mode == "search":
                raise _Stop("error", "mode search needs tests: edits are judged by them")
            return None
        step = search_host.localize_and_search(self, searching, (Cancelled, _Stop))
        self.search_step = step or self.search_step
        if step is not None and step.search is not None:
            self.refused += [f"edit search: {why}" for why in step.search.refused]
        if step is not None and self._adopt(step.fix, step.caveat, step.alternatives):
            return "passed"
        if step is not None and searching and self._start_from_partial(step):
            return "passed"
        self._check()  # cancelled, or the search spent the time budget
        return "no_improvement" if self.request.mode == "search" else None

    def _local_edits(self) -> bool:
        """`auto`, when the search found no fix: the model's local edits at the suspicious
        lines (model_edits/), on the function as it is or, when the search fixed part of it
        (a bug at two places), on that partial fix; True when one is the fix."""
        step, version = self.search_step, None
        if self.best is not None:  # the search's partial fix: the edits start from it
            start = self.partial
            step = start.second if start is not None else None
            version = start.version if start is not None else None
            if version is None:
                return False
        if (
            self.request.mode != "auto"
            or self.request.model_edits_s <= 0
            or step is None
            or step.localization is None
            or step.ambiguous  # the tests cannot choose among edits already
        ):
            return False
        on = " of the search's partial fix" if version is not None else ""
        self._emit(f"model edits at the suspicious lines{on}")
        found = model_edits.for_session(
            self, self.backend, step.localization, self.model.usage, (Cancelled, _Stop), version
        )
        if found is not None and found.search is not None:
            self.refused += [f"model local edit: {why}" for why in found.search.refused]
        self._check()
        if found is None or not self._adopt(found.fix, found.caveat, found.alternatives):
            return False
        self.mode = "auto"  # the model wrote it: not the edit search's
        return True

    def _start_from_partial(self, step: SearchStep) -> bool:
        """The search's partial fix (search_host.partial_start): True when a second search
        on it finished the fix; else, when it holds up, the model starts from it (the best so
        far, shown as the function with its remaining failures)."""
        self._check()
        start = search_host.partial_start(self, step, (Cancelled, _Stop))
        self.partial = start
        if start is None:
            return False
        if self._adopt(start.fix):
            return True
        self.best, self.best_wider = Evaluated(start.candidate, start.run), None
        self.found_by = "edit search (part of a fix)"
        self.current_code, self.current_run = start.code, start.run
        self.fixed_at_turn = self.turn
        return False

    def _adopt(
        self, fix: VerifiedFix | None, caveat: str = "", alternatives: Alternatives | None = None
    ) -> bool:
        """A search fix, judged like a model's (all chosen pass, no wider test broken);
        `caveat`: what its judging could not tell (SearchStep.caveat), `alternatives` its edits."""
        if fix is None:
            return False
        self.fix_caveat, self.fix_alternatives = caveat, alternatives
        self.best = Evaluated(fix.candidate, fix.chosen_run)
        self.best_wider, self.found_by = fix.wider_run, fix.found_by
        self.fixed_at_turn = self.turn  # 0 in `search`; in `auto`, the turn it followed
        self.mode = "search"  # the mode that found it
        return True

    def _search_hint(self) -> str:
        """The search's undecided edits, for the model from `auto`'s second turn on: shown in
        turn 1 they led the 1.5B model astray (QuixBugs dev find_in_sorted, fixed by a first
        turn without them), and a near-miss search's note is new evidence for the next turn."""
        if self.search_step is None or (self.request.mode == "auto" and self.turn < 2):
            return ""
        return self.search_step.ambiguity_note()

    def _suspicious_prompt(self) -> str:
        localization = self.search_step.localization if self.search_step else None
        return localization.prompt_line(3, self.source) if localization is not None else ""

    def _loop(self) -> StopReason:
        request = self.request
        self._enter_mode(0)
        max_turns = self._max_turns()
        best = self.best.run if self.best is not None else self.chosen_before  # a partial fix
        best_passed = best.passed if best is not None else 0
        without_improvement = 0
        while True:
            if self.turn >= max_turns:
                return "max_turns"
            self.turn += 1
            self._emit(f"turn {self.turn}/{max_turns}")
            failed = False
            try:
                outcome = take_turn(self)
            except CallFailed:  # recorded by the model caller: the turn ends, the session not
                outcome, failed = None, True
            improved = False
            if outcome is not None and outcome.evaluated.run is None:  # no tests: structural
                self.best, self.fixed_at_turn = outcome.evaluated, self.turn
            elif outcome is not None and outcome.fixed:
                self.best, self.best_wider = outcome.evaluated, outcome.wider
                self.found_by = ""  # the model's (from the search's partial fix, maybe)
                self.fixed_at_turn = self.turn
                return "passed"
            elif outcome is not None and outcome.broken is not None:
                self.check_error = feedback.regression_note(outcome.broken, self.target, self.file)
                names = ", ".join(f"`{t.nodeid}`" for t in outcome.broken[:3])
                verdict = f"Not kept: it passed the tests shown but broke {names}."
                self._remember(outcome.evaluated, verdict, kept=False)
            elif outcome is not None:
                improved = self._weigh(outcome.evaluated, best_passed)
                near = outcome.evaluated  # a near miss: the search may finish it
                if self._beats_original(near) and self._adopt(
                    search_host.near_miss_fix(self, near.candidate, near.run, (Cancelled, _Stop))
                ):
                    return "passed"
                if improved:
                    best_passed = self.best.run.passed if self.best and self.best.run else 0
            if improved:
                without_improvement = 0
            else:
                without_improvement += 1
            if not self.strategy.loops:
                return "max_turns"
            if without_improvement >= request.no_improvement_limit:
                return "no_improvement"
            if failed:  # no answer says nothing of the mode: it gets the next turn too
                continue
            plan_spent = not improved and not self._next_mode() and request.mode == "auto"
            if plan_spent and without_improvement >= AUTO_TURNS_WITHOUT_GAIN:
                return "no_improvement"  # further turns have not paid

    def _beats_original(self, evaluated: Evaluated) -> bool:
        """More chosen tests pass than on the original: a near miss worth a search, even when
        the search's own partial fix (the best so far) passes as many."""
        before = self.chosen_before.passed if self.chosen_before is not None else 0
        return evaluated.run is not None and evaluated.run.passed > before

    def _weigh(self, evaluated: Evaluated, best_passed: int) -> bool:
        """A candidate that does not pass every chosen test: the best so far when it passes
        more than any before (True), the version shown next when it passes no fewer than the
        current one; remembered either way."""
        run = evaluated.run
        assert run is not None and self.current_run is not None
        improved = run.passed > best_passed
        if improved:
            self.best, self.best_wider = evaluated, None
            self.found_by = ""
            self.fixed_at_turn = self.turn
        current = f"{self.current_run.passed}/{self.current_run.total}"
        if run.passed >= self.current_run.passed and evaluated.candidate.code:
            verdict = (
                f"Kept: it passed {run.passed}/{run.total}, no fewer than before ({current}), "
                "so the function shown above is this version."
            )
            if not self.strategy.shows_failures:
                verdict = "Kept: the function shown above is this version; it is still wrong."
            self._remember(evaluated, verdict, kept=True)
            self.current_code = evaluated.candidate.code
            self.current_run = run
        else:
            verdict = (
                f"Not kept: it passed fewer tests ({run.passed}/{run.total}) than the version "
                f"shown above ({current})."
            )
            if not self.strategy.shows_failures:
                verdict = "Not kept: it is still wrong."
            self._remember(evaluated, verdict, kept=False)
        return improved

    def _final_guard(self) -> None:
        """A partial improvement is proposed only if it also keeps the wider tests."""
        if self.best is None or self.best.run is None or self.best_wider is not None:
            return
        if not self.request.wider_tests:
            return
        broken, wider = guard(self, self.best)
        if not broken:
            self.best_wider = wider
        else:
            self.warnings.append("the best partial candidate broke a wider test; not proposed")
            self.best, self.fixed_at_turn = None, None

    def run(self) -> DebugResult:
        if not self.request.pinned_files:
            return self._run()
        with self.runner.pinned(self.request.pinned_files):
            return self._run()

    def _run(self) -> DebugResult:
        stop: StopReason
        error = ""
        try:
            early = self._setup()
            stop = early if early is not None else self._loop()
        except _Stop as halt:
            stop, error = halt.reason, halt.message if halt.reason == "error" else ""
            if halt.reason != "error":
                self.recorder.record("budget", reason=halt.reason, message=halt.message)
        except Exception as problem:  # never crash the caller (LSP server, CLI, benchmark)
            remaining = self.remaining_s()
            stop, error = session_stop(problem, remaining is not None and remaining <= 1.0)
            if not isinstance(problem, (BackendError, Cancelled)):
                self.recorder.record("exception", traceback=traceback.format_exc())
        try:
            if stop not in ("cancelled", "error", "passed"):
                self._final_guard()
        except (Cancelled, BackendCancelled):  # cancelled while the wider tests ran
            self.best, stop = None, "cancelled"
        except Exception as problem:
            self.best = None
            error = error or f"regression guard failed: {problem}"
        result = session_result(self, stop, error)
        self.recorder.session_end(result)
        self.close()
        return result

    def close(self) -> None:
        self.recorder.close()
        if self._own_runner and self._runner is not None:
            try:
                self._runner.close()
            finally:
                self._runner = None


def run_session(
    request: DebugRequest,
    backend: Backend,
    *,
    runner: ProjectRunner | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> DebugResult:
    """Debug `request.qualname` in `request.file` with `backend`; see the module docstring.
    Creates (and closes) a ProjectRunner when none is given. Never raises for session problems:
    they come back as stop_reason "error" with `DebugResult.error` set."""
    started = time.monotonic()
    recorder = Recorder(Transcript(request.transcript_path), progress)
    try:
        source, target = read_target(request.file, request.qualname, request.source_override)
    except TargetNotFound as error:
        where = (
            ""
            if isinstance(error, TargetUnreadable)
            else relative_label(request.file, request.project_root) + ": "
        )
        result = unlocated_result(request, f"{where}{error}", started)
        recorder.session_end(result)
        recorder.close()
        return result
    session = Session(
        request,
        backend,
        source,
        target,
        runner=runner,
        recorder=recorder,
        cancel=cancel,
        started=started,
    )
    return session.run()
