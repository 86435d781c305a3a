"""What a session's run carries from step to step: the located function, the baseline's runs
and evidence, the version the model is shown, the fix so far; and the plumbing every step uses
(tests run in the shadow copy, model calls, progress, the transcript, the budgets).

Why one object: the steps (steps.py, turns.py), a turn (turn.py), the modes' own steps
(modes.Workbench) and the edit search (search/host.SearchHost) all read and write the same
run; each sees it through the protocol it needs.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfdebug.server.backends.base import Backend, Completion
from selfdebug.server.cancel import Cancelled, CancelToken
from selfdebug.server.engine import feedback
from selfdebug.server.engine.answers.answer_form import AnswerForm, choose_answer_form
from selfdebug.server.engine.evidence import NO_EVIDENCE, Evidence
from selfdebug.server.engine.history import AttemptLog
from selfdebug.server.engine.judge.context import Preference, SearchContext
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
    STEP_MAX_TOKENS,
    STRATEGIES,
    ModeStrategy,
    PlannedMode,
    strategy_of,
)
from selfdebug.server.engine.overfitting import NO_EXPECTED_VALUES, ExpectedValues
from selfdebug.server.engine.recorder import Recorder
from selfdebug.server.engine.search import host as search_host
from selfdebug.server.engine.session.pipeline import check_budget
from selfdebug.server.engine.target import TargetFunction, relative_label
from selfdebug.server.engine.transcript import compact_run
from selfdebug.server.engine.turn import Evaluated
from selfdebug.server.engine.types import Alternatives, DebugRequest, Mode
from selfdebug.server.runner.results import RunResult

if TYPE_CHECKING:
    from selfdebug.server.engine.judge.verify import VerifiedFix
    from selfdebug.server.engine.search.edit_search import SearchStep
    from selfdebug.server.runner import ProjectRunner


class RunContext:
    """One session's run on a located function (see session/run.py, which builds it)."""

    def __init__(
        self,
        request: DebugRequest,
        backend: Backend,
        source: str,
        target: TargetFunction,
        plan: list[PlannedMode],
        *,
        runner: ProjectRunner | None,
        recorder: Recorder,
        cancel: CancelToken | None,
        started: float,
    ) -> None:
        self.request = request
        self.requested: ModeStrategy = strategy_of(request.mode)  # `auto` too
        self.backend = backend
        self.source = source
        self.target = target
        self.own_runner = runner is None
        self._runner = runner
        self.recorder = recorder
        self.cancel = cancel or CancelToken()
        self.started = started
        prompts = PromptLibrary(request.model.prompts_dir)
        self.model = ModelCaller(
            backend, prompts, request, self.cancel, self.record, recorder.model_progress
        )
        self.file = Path(request.target.file).resolve()
        self.label = relative_label(request.target.file, request.target.project_root)
        self.turn = 0
        self.plan = plan  # the turns' modes (modes.plan_modes)
        self.strategy: ModeStrategy = STRATEGIES[plan[0].mode]  # the running turn's
        self.mode: Mode = request.mode  # the requested one until the first turn runs
        # The baseline: the chosen and wider tests on the original, read once.
        self.tests_shown: list[ShownTest] = []  # set from the baseline run (failing first)
        self.chosen_before: RunResult | None = None
        self.wider_before: RunResult | None = None
        self.evidence: Evidence = NO_EVIDENCE  # chosen_before's failing tests, read once
        # what the failing tests compared with: a candidate that writes it in is refused
        self.test_values: ExpectedValues = NO_EXPECTED_VALUES
        # The version the model is shown, and what the next prompt says about the last answer.
        self.current_code = target.code
        self.current_run: RunResult | None = None
        self.check_error = ""  # why the last answer could not be used
        self.repeat_note = ""  # the last answer or request repeated an earlier one
        self.attempts = AttemptLog(target.code)
        self.runs: dict[tuple[str, str], RunResult] = {}  # (chosen|wider, program) -> result
        self._sample_turn = 0  # the turn whose calls sample (a program repeated the turn before)
        self._told_form: AnswerForm | None = None  # the answer form the transcript last named
        # The fix so far, and what the result reports of it (session_result.py).
        self.best: Evaluated | None = None
        self.best_wider: RunResult | None = None
        self.fixed_at_turn: int | None = None
        self.found_by = ""
        self.fix_caveat = ""  # the proposed search or local edit's caveat (see adopt)
        self.fix_alternatives: Alternatives | None = None  # the caveat's edits (see adopt)
        self.refused: list[str] = []  # candidates refused as overfitting, with why
        self.warnings: list[str] = []
        self.candidates_checked = 0
        # The edit search's.
        self.search_step: SearchStep | None = None  # issue 13: localization (+ edit search)
        self.partial: search_host.PartialStart | None = None  # the search's partial fix, run
        self.near_misses = 0  # edit searches run on the model's near misses

    # -- plumbing (also what modes use, see modes.Workbench, and the search, host.SearchHost) --

    @property
    def runner(self) -> ProjectRunner:
        if self._runner is None:
            from selfdebug.server.runner import ProjectRunner, RunnerSettings

            settings = RunnerSettings(test_timeout_s=self.request.budget.test_timeout_s)
            self._runner = ProjectRunner(Path(self.request.target.project_root), settings)
        return self._runner

    def close_runner(self) -> None:
        """The runner this run made (none given): closed with it."""
        if self.own_runner and self._runner is not None:
            try:
                self._runner.close()
            finally:
                self._runner = None

    def preference_for(self, context: SearchContext) -> Preference | None:
        """`auto` with the model's local edits on: the model votes among fixes the tests cannot
        tell apart (model_edits/preference.py); elsewhere the search's own rules decide."""
        if not self.requested.runs_local_edits(self.request):
            return None
        return model_preference(
            context, self.backend, self.model.usage, sample=model_edits.sample_hole
        )

    def remaining_s(self) -> float | None:
        if self.request.budget.time_budget_s is None:
            return None
        return self.request.budget.time_budget_s - (time.monotonic() - self.started)

    def check(self) -> None:
        """Between phases: cancel, then the time and token budgets (pipeline.check_budget)."""
        check_budget(self)

    def emit(self, phase: str, fraction: float = 0.0, *, baseline: RunResult | None = None) -> None:
        """Progress; `baseline` once, right after the baseline run."""
        self.recorder.progress(
            turn=self.turn,
            max_turns=1 if not self.strategy.loops else max(1, self.request.budget.max_turns),
            phase=phase,
            fraction=fraction,
            mode=self.strategy.name,
            baseline=baseline,
        )

    def record(self, event: str, **fields: Any) -> None:
        """A transcript record of the current turn."""
        self.recorder.record(event, turn=self.turn, **fields)

    def run_tests(
        self,
        nodeids: list[str],
        source: str,
        *,
        label: str,
        probes: bool = False,
        reuse: bool = False,
    ) -> RunResult:
        """`reuse`: an earlier run of these tests on the same program may answer (the runner's
        memo, run_memo.py)."""
        self.check()
        remaining = self.remaining_s()
        result = self.runner.run(
            list(nodeids),
            overrides={self.file: source},
            probes=probes,
            cancel=self.cancel,
            timeout_s=max(remaining, 1.0) if remaining is not None else None,
            reuse=reuse,
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
        self.check()
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

    def sample_next_turn(self) -> None:
        """The next turn's calls sample: greedy decoding would give the same answer again."""
        self._sample_turn = self.turn + 1

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
            max_turns=self.request.budget.max_turns,
            edit_form=self._answer_form().edit_form,
            **extra,
        )

    def _answer_form(self) -> AnswerForm:
        """The whole function, or SEARCH/REPLACE blocks for a long one (answers/answer_form.py)."""
        budget = self.request.model.max_tokens or STEP_MAX_TOKENS[self.strategy.fix_step]
        chat = self.backend.prompt_form == "chat"
        form = choose_answer_form(self.current_code, budget, chat=chat)
        if form.edit_form and form != self._told_form:
            self.record("answer_form", why=form.describe())
            self._told_form = form
        return form

    def _search_hint(self) -> str:
        """The search's undecided edits, for the model from the requested mode's
        `search_hint_turn` on (modes.AUTO says why)."""
        if self.search_step is None or self.turn < self.requested.search_hint_turn:
            return ""
        return self.search_step.ambiguity_note()

    def _suspicious_prompt(self) -> str:
        localization = self.search_step.localization if self.search_step else None
        return localization.prompt_line(3, self.source) if localization is not None else ""

    def evidence_of(self, run: RunResult) -> Evidence:
        """The failing tests of `run`: the baseline's as read once, another run's read now."""
        return self.evidence if run is self.chosen_before else Evidence.of(run)

    def source_with(self, code: str) -> str:
        if code == self.target.code:
            return self.source
        return self.target.replace_in(self.source, code)

    # -- the fix ----------------------------------------------------------------------------

    def adopt(
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
