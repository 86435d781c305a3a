"""One self-debugging session: run the tests, build the mode's feedback, ask the model, check and
run its candidate, and repeat until the chosen tests pass or a stop rule fires.

The user's file is never written here: the session works on text and runs every version in the
runner's shadow copy (through `overrides`). The result carries the evidence ("passes N/M chosen,
K/L wider") and a diff the caller may offer to apply.
"""

from __future__ import annotations

import textwrap
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfdebug.server.backends.base import (
    Backend,
    BackendCancelled,
    BackendError,
    BackendTimeout,
    Completion,
    Usage,
)
from selfdebug.server.cancel import Cancelled, CancelToken
from selfdebug.server.engine import feedback
from selfdebug.server.engine.candidate import (
    Candidate,
    check_candidate,
    count_print_calls,
    extract_code,
    program_key,
    same_code,
)
from selfdebug.server.engine.diffing import unified_diff
from selfdebug.server.engine.modes import MODE_SPECS, ModeSpec, resolve_mode
from selfdebug.server.engine.prompting import PromptLibrary, PromptVars, RenderedPrompt, ShownTest
from selfdebug.server.engine.target import TargetFunction, TargetNotFound, locate
from selfdebug.server.engine.transcript import Transcript
from selfdebug.server.engine.types import (
    DebugRequest,
    DebugResult,
    Progress,
    ProgressCallback,
    StopReason,
    TestTally,
)
from selfdebug.server.engine.vote import Scored, choose
from selfdebug.server.runner.results import RunResult

if TYPE_CHECKING:
    from selfdebug.server.runner import ProjectRunner

REGRESSION_NOTE = (
    "the last fix made the shown tests pass but broke other behaviour of the function that "
    "worked before (another test now fails); make a smaller, more careful change"
)


class _Stop(Exception):
    """Ends the loop with a stop reason (budgets, cancel, errors)."""

    def __init__(self, reason: StopReason, message: str = "") -> None:
        super().__init__(message or reason)
        self.reason: StopReason = reason
        self.message = message


@dataclass
class _Evaluated:
    candidate: Candidate
    run: RunResult | None  # None when there are no tests to run


def _tally(run: RunResult | None) -> TestTally | None:
    return TestTally(run.passed, run.total) if run is not None else None


def _missing(nodeids: list[str], run: RunResult) -> list[str]:
    """Requested ids with no result (a parametrized or file/class id matches its items)."""
    seen = [t.nodeid for t in run.tests]
    return [
        n for n in nodeids if not any(s == n or s.startswith((n + "[", n + "::")) for s in seen)
    ]


def _compact(run: RunResult) -> dict[str, Any]:
    return {
        "passed": run.passed,
        "total": run.total,
        "error": run.error,
        "timed_out": run.timed_out,
        "isolation": run.isolation,
        "duration": round(run.duration, 3),
        "tests": [
            {
                "nodeid": t.nodeid,
                "outcome": t.outcome,
                "exc_type": t.exc_type,
                "message": t.message[:300],
                "assert_left": t.assert_left,
                "assert_right": t.assert_right,
                "probes": len(t.probes),
            }
            for t in run.tests
        ],
    }


class Session:
    def __init__(
        self,
        request: DebugRequest,
        backend: Backend,
        runner: ProjectRunner | None,
        progress: ProgressCallback | None,
        cancel: CancelToken | None,
    ) -> None:
        self.request = request
        self.backend = backend
        self._own_runner = runner is None
        self._runner = runner
        self._progress = progress
        self.cancel = cancel or CancelToken()
        self.prompts = PromptLibrary(request.prompts_dir)
        self.transcript = Transcript(request.transcript_path)
        self.started = time.monotonic()
        self.usage = Usage()
        self.file = Path(request.file).resolve()
        self.label = self._label()
        self.turn = 0
        self.mode = request.mode
        self.spec: ModeSpec = MODE_SPECS["explain"]
        self.source = ""
        self.target: TargetFunction | None = None
        self.tests_shown: list[ShownTest] = []
        self.chosen_before: RunResult | None = None
        self.wider_before: RunResult | None = None
        self.current_code = ""
        self.current_run: RunResult | None = None
        self.best: _Evaluated | None = None
        self.best_wider: RunResult | None = None
        self.fixed_at_turn: int | None = None
        self.check_error = ""
        self.warnings: list[str] = []
        self.candidates_checked = 0
        self._runs: dict[tuple[str, str], RunResult] = {}  # (chosen|wider, program) -> result

    # -- plumbing -----------------------------------------------------------------------------

    def _label(self) -> str:
        try:
            return self.file.relative_to(Path(self.request.project_root).resolve()).as_posix()
        except ValueError:
            return self.file.name

    @property
    def runner(self) -> ProjectRunner:
        if self._runner is None:
            from selfdebug.server.runner import ProjectRunner, RunnerSettings

            settings = RunnerSettings(test_timeout_s=self.request.test_timeout_s)
            self._runner = ProjectRunner(Path(self.request.project_root), settings)
        return self._runner

    def _remaining_s(self) -> float | None:
        if self.request.time_budget_s is None:
            return None
        return self.request.time_budget_s - (time.monotonic() - self.started)

    def _check(self) -> None:
        """Between phases: cancel, then the time and token budgets."""
        self.cancel.raise_if_cancelled()
        remaining = self._remaining_s()
        if remaining is not None and remaining <= 0:
            raise _Stop("time_budget", f"time budget of {self.request.time_budget_s}s spent")
        budget = self.request.token_budget
        if budget is not None and self.usage.prompt_tokens + self.usage.completion_tokens >= budget:
            raise _Stop("token_budget", f"token budget of {budget} spent")

    def _emit(self, phase: str, fraction: float = 0.0) -> None:
        max_turns = 1 if not self.spec.loops else max(1, self.request.max_turns)
        done = (max(self.turn - 1, 0) + min(max(fraction, 0.0), 1.0)) / max_turns
        percentage = 0 if self.turn == 0 else min(99, int(done * 100))
        event = Progress(
            turn=self.turn,
            max_turns=max_turns,
            phase=phase,
            percentage=percentage,
            message=f"turn {self.turn}/{max_turns}: {phase}" if self.turn else phase,
            mode=self.spec.name if self.turn else "",
        )
        self.transcript.write("progress", turn=self.turn, phase=phase, percentage=percentage)
        if self._progress is not None:
            try:
                self._progress(event)
            except Exception:  # a broken progress sink must not end the session
                pass

    def _run_tests(
        self, nodeids: list[str], source: str, *, label: str, probes: bool = False
    ) -> RunResult:
        self._check()
        remaining = self._remaining_s()
        result = self.runner.run(
            list(nodeids),
            overrides={self.file: source},
            probes=probes,
            cancel=self.cancel,
            timeout_s=max(remaining, 1.0) if remaining is not None else None,
        )
        self.transcript.write(
            "tests", turn=self.turn, label=label, probes=probes, result=_compact(result)
        )
        if result.cancelled or self.cancel.cancelled:
            raise Cancelled(self.cancel.reason or "cancelled")
        return result

    def _ask(
        self, step: str, variables: PromptVars, n: int = 1
    ) -> tuple[RenderedPrompt, Completion]:
        self._check()
        rendered = self.prompts.render(step, self.backend.prompt_form, variables)
        remaining = self._remaining_s()
        deadline = self.request.model_call_deadline_s
        if remaining is not None:  # never past the session's own time budget
            deadline = max(1.0, min(remaining, deadline))
        max_tokens = self.request.max_tokens
        if self.request.token_budget is not None:  # do not overshoot the budget by much
            used = self.usage.prompt_tokens + self.usage.completion_tokens
            max_tokens = max(16, min(max_tokens, self.request.token_budget - used))
        request = rendered.to_request(
            max_tokens=max_tokens,
            temperature=self.request.temperature if n > 1 else 0.0,
            n=n,
            deadline_s=deadline,
        )
        completion = self.backend.complete(request, cancel=self.cancel)
        self.usage.add(completion)
        self.transcript.write(
            "model_call",
            turn=self.turn,
            step=step,
            form=rendered.form,
            prompt=rendered.prompt,
            messages=rendered.messages,
            stop=rendered.stop,
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            n=n,
            completions=completion.texts,
            finish_reasons=completion.finish_reasons,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            seconds=round(completion.seconds, 3),
            model=completion.model or self.backend.name,
        )
        return rendered, completion

    def _vars(self, **extra: Any) -> PromptVars:
        assert self.target is not None
        run = self.current_run
        failures = ""
        if run is not None and self.spec.shows_failures:
            failures = feedback.describe_failures(run, self.target, self.file)
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
            turn=self.turn,
            max_turns=self.request.max_turns,
            **extra,
        )

    def _source_with(self, code: str) -> str:
        assert self.target is not None
        if code == self.target.code:
            return self.source
        return self.target.replace_in(self.source, code)

    # -- the real-log step (print and probe modes) ---------------------------------------------

    def _gather_log(self) -> dict[str, str] | None:
        """Run the first failing test on an instrumented copy and return the log's prompt vars;
        None (with `check_error` set) when the model's prints cannot be used."""
        assert self.target is not None and self.current_run is not None
        failing = feedback.first_failing(self.current_run) or self.request.tests[0]
        code_with_prints = ""
        if self.spec.log == "probes":
            from selfdebug.instrument import instrument_function

            self._emit("inserting probes", 0.05)
            instrumented = instrument_function(
                self._source_with(self.current_code).encode("utf-8"),
                self.target.qualname,
                self.request.probe_level,
            ).decode("utf-8")
        else:
            from selfdebug.instrument import validate_model_prints

            self._emit("asking the model for print statements", 0.05)
            rendered, completion = self._ask("add_prints", self._vars(failing_test=failing), n=1)
            code = extract_code(
                completion.text,
                self.target.name,
                rendered.opens_code_fence,
                rendered.code_prefix,
            )
            if not code:
                self.check_error = "the answer with print statements held no code"
                return None
            code = textwrap.dedent(code)
            validation = validate_model_prints(
                self.current_code, code, first_line=self.target.start_line + 1
            )
            self.transcript.write(
                "prints_check", turn=self.turn, ok=validation.ok, reason=validation.reason
            )
            if not validation.ok:
                self.check_error = f"the version with prints was not used: {validation.reason}"
                return None
            code_with_prints = code.rstrip("\n")
            instrumented = self.target.replace_in(self.source, validation.instrumented)
        self._emit(f"running {failing} with logging", 0.15)
        run = self._run_tests([failing], instrumented, label="log", probes=True)
        test = run.by_id().get(failing) or (run.tests[0] if run.tests else None)
        records = test.probes if test is not None else []
        log = feedback.format_log(
            records,
            self.target.start_line,
            self.request.log_chars,
            capped=bool(test and test.probes_truncated),
        )
        self.transcript.write("log", turn=self.turn, kind=self.spec.log, test=failing, log=log)
        return {
            "failing_test": failing,
            "log": log,
            "log_kind": self.spec.log,
            "code_with_prints": code_with_prints,
        }

    # -- one turn ------------------------------------------------------------------------------

    def _turn(self) -> _Evaluated | None:
        """Ask for a fix (after the mode's extra step), check every sample, run the usable ones
        and keep the voted one. None when no sample was usable (`check_error` says why)."""
        assert self.target is not None
        extra: dict[str, str] = {}
        if self.spec.log and self.current_run is not None:
            gathered = self._gather_log()
            if gathered is None:
                return None
            extra = gathered
        variables = self._vars(**extra)
        self.check_error = ""
        self._emit("asking the model", 0.3)
        rendered, completion = self._ask(
            self.spec.fix_step, variables, n=max(1, self.request.samples)
        )
        self._emit(f"checking {len(completion.texts)} candidate(s)", 0.7)
        from selfdebug.instrument import contains_probes

        candidates = [
            check_candidate(
                text,
                self.target,
                self.source,
                opened_fence=rendered.opens_code_fence,
                code_prefix=rendered.code_prefix,
                contains_probes=contains_probes,
            )
            for text in completion.texts
        ]
        for candidate in candidates:
            if candidate.ok and candidate.code and same_code(candidate.code, self.current_code):
                candidate.problem = (
                    "the answer repeats the function without any change; change the line that "
                    "makes the tests fail"
                )
            elif (
                candidate.ok
                and self.spec.log == "prints"
                and count_print_calls(candidate.code or "") > count_print_calls(self.target.code)
            ):
                candidate.problem = "the fix still contains debugging print statements"
        for index, candidate in enumerate(candidates):
            self.transcript.write(
                "candidate",
                turn=self.turn,
                index=index,
                ok=candidate.ok,
                problem=candidate.problem,
                warnings=candidate.warnings,
                explanation=candidate.explanation,
                code=candidate.code,
            )
        usable = [c for c in candidates if c.ok]
        self.candidates_checked += len(usable)
        if not usable:
            self.check_error = candidates[0].problem if candidates else "the model gave no answer"
            return None
        if not self.request.tests:
            return _Evaluated(usable[0], None)
        scored: list[Scored] = []
        for index, candidate in enumerate(usable):
            assert candidate.new_source is not None
            run = self._cached_run("chosen", self.request.tests, candidate, index)
            scored.append(Scored(index, run))
        picked = choose(scored)
        assert picked is not None
        if len(usable) > 1:
            self.transcript.write(
                "vote", turn=self.turn, picked=picked.index, passed=[s.run.passed for s in scored]
            )
        return _Evaluated(usable[picked.index], picked.run)

    def _cached_run(
        self, kind: str, nodeids: list[str], candidate: Candidate, index: int
    ) -> RunResult:
        """Run `nodeids` on a candidate, once per distinct program: models often propose the
        same code again, and its tests would only say the same thing again."""
        assert candidate.new_source is not None
        key = (kind, program_key(candidate.code or candidate.new_source))
        if key in self._runs:
            self.transcript.write("tests_reused", turn=self.turn, label=kind)
            return self._runs[key]
        if kind == "chosen":
            self._emit(f"running {len(nodeids)} tests on candidate {index + 1}", 0.8)
        else:
            self._emit(f"running {len(nodeids)} wider tests", 0.9)
        run = self._run_tests(nodeids, candidate.new_source, label=kind)
        self._runs[key] = run
        return run

    def _guard(self, evaluated: _Evaluated) -> tuple[bool, RunResult | None]:
        """Regression guard: the candidate must not break a wider test that passed before."""
        if not self.request.wider_tests or self.wider_before is None:
            return True, None
        assert evaluated.candidate.new_source is not None
        after = self._cached_run("wider", self.request.wider_tests, evaluated.candidate, 0)
        now = after.by_id()
        broken = [
            t.nodeid
            for t in self.wider_before.tests
            if t.ok and (t.nodeid not in now or not now[t.nodeid].ok)
        ]
        self.transcript.write("guard", turn=self.turn, broken=broken, result=_compact(after))
        return not broken, after

    # -- the loop ------------------------------------------------------------------------------

    def _setup(self) -> StopReason | None:
        request = self.request
        if request.source_override is not None:
            self.source = request.source_override
        else:
            try:
                with self.file.open(encoding="utf-8", newline="") as handle:
                    self.source = handle.read()  # keep the file's own line endings
            except OSError as error:
                raise _Stop("error", f"cannot read {self.file}: {error.strerror or error}")
        try:
            self.target = locate(self.source, request.qualname)
        except TargetNotFound as error:
            raise _Stop("error", f"{self.label}: {error}")
        self.current_code = self.target.code
        self.tests_shown = [
            ShownTest(nodeid, feedback.source_of_test(Path(request.project_root), nodeid))
            for nodeid in request.tests
        ]
        self.transcript.write(
            "session_start",
            file=str(self.file),
            qualname=request.qualname,
            requested_mode=request.mode,
            tests=request.tests,
            wider_tests=len(request.wider_tests),
            max_turns=request.max_turns,
            samples=request.samples,
            backend=self.backend.name,
            prompt_form=self.backend.prompt_form,
            function_range=[self.target.start_line, self.target.end_line],
        )
        if request.tests:
            self._emit(f"running {len(request.tests)} tests")
            self.chosen_before = self._run_tests(request.tests, self.source, label="baseline")
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
        if request.wider_tests:
            self._emit(f"running {len(request.wider_tests)} wider tests")
            self.wider_before = self._run_tests(request.wider_tests, self.source, label="wider")
        self.mode, why = resolve_mode(
            request.mode, has_tests=bool(request.tests), can_probe=self._can_probe()
        )
        self.spec = MODE_SPECS[self.mode]
        self.transcript.write("mode", requested=request.mode, mode=self.mode, why=why)
        return None

    def _can_probe(self) -> bool:
        if self.request.mode not in ("auto", "probe") or self.target is None:
            return False
        try:
            from selfdebug.instrument import instrument_function

            instrument_function(
                self.source.encode("utf-8"), self.target.qualname, self.request.probe_level
            )
        except Exception as error:  # any failure means: no probes for this function
            self.transcript.write(
                "probe_check", ok=False, reason=f"{type(error).__name__}: {error}"
            )
            return False
        return True

    def _loop(self) -> StopReason:
        request = self.request
        max_turns = 1 if not self.spec.loops or not request.tests else max(1, request.max_turns)
        best_passed = self.chosen_before.passed if self.chosen_before else 0
        without_improvement = 0
        while True:
            if self.turn >= max_turns:
                return "max_turns"
            self.turn += 1
            self._emit(f"turn {self.turn}/{max_turns}")
            evaluated = self._turn()
            improved = False
            if evaluated is not None and evaluated.run is None:  # no tests: structural only
                self.best, self.fixed_at_turn = evaluated, self.turn
            elif evaluated is not None and evaluated.run is not None:
                run = evaluated.run
                if run.all_passed:
                    safe, wider = self._guard(evaluated)
                    if safe:
                        self.best, self.best_wider = evaluated, wider
                        self.fixed_at_turn = self.turn
                        return "passed"
                    self.check_error = REGRESSION_NOTE
                else:
                    if run.passed > best_passed:
                        best_passed, improved = run.passed, True
                        self.best, self.best_wider = evaluated, None
                        self.fixed_at_turn = self.turn
                    assert self.current_run is not None
                    if run.passed >= self.current_run.passed and evaluated.candidate.code:
                        self.current_code = evaluated.candidate.code
                        self.current_run = run
            if improved:
                without_improvement = 0
            else:
                without_improvement += 1
            if not self.spec.loops:
                return "max_turns"
            if without_improvement >= request.no_improvement_limit:
                return "no_improvement"

    def _final_guard(self) -> None:
        """A partial improvement is proposed only if it also keeps the wider tests."""
        if self.best is None or self.best.run is None or self.best_wider is not None:
            return
        if not self.request.wider_tests:
            return
        safe, wider = self._guard(self.best)
        if safe:
            self.best_wider = wider
        else:
            self.warnings.append("the best partial candidate broke a wider test; not proposed")
            self.best, self.fixed_at_turn = None, None

    def run(self) -> DebugResult:
        stop: StopReason
        error = ""
        try:
            early = self._setup()
            stop = early if early is not None else self._loop()
        except _Stop as halt:
            stop, error = halt.reason, halt.message if halt.reason == "error" else ""
            if halt.reason != "error":
                self.transcript.write("budget", reason=halt.reason, message=halt.message)
        except (Cancelled, BackendCancelled):
            stop = "cancelled"
        except BackendTimeout as problem:
            remaining = self._remaining_s()
            if remaining is not None and remaining <= 1.0:
                stop = "time_budget"  # the call was cut short by the session's own deadline
            else:
                stop, error = "error", str(problem)
        except BackendError as problem:
            stop, error = "error", str(problem)
        except Exception as problem:  # never crash the caller (LSP server, CLI, benchmark)
            stop, error = "error", f"{type(problem).__name__}: {problem}"
            self.transcript.write("exception", traceback=traceback.format_exc())
        try:
            if stop not in ("cancelled", "error", "passed"):
                self._final_guard()
        except (Cancelled, BackendCancelled):  # cancelled while the wider tests ran
            self.best, stop = None, "cancelled"
        except Exception as problem:
            self.best = None
            error = error or f"regression guard failed: {problem}"
        result = self._result(stop, error)
        self.transcript.write(
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
        )
        self.close()
        return result

    def _result(self, stop: StopReason, error: str) -> DebugResult:
        best = self.best
        fixed_file = best.candidate.new_source if best is not None else None
        warnings = list(self.warnings)
        if best is not None:
            warnings.extend(best.candidate.warnings)
        target = self.target
        return DebugResult(
            stop_reason=stop,
            turns=self.turn,
            mode=self.mode,  # still the requested one when the session ended before choosing
            original_function=target.code if target else "",
            fixed_function=best.candidate.code if best is not None else None,
            fixed_file=fixed_file,
            diff=unified_diff(self.source, fixed_file, self.label) if fixed_file else "",
            explanation=best.candidate.explanation if best is not None else "",
            chosen_before=_tally(self.chosen_before) or TestTally(0, len(self.request.tests)),
            chosen_after=(_tally(best.run) or TestTally(0, 0)) if best is not None else None,
            wider_before=_tally(self.wider_before),
            wider_after=_tally(self.best_wider),
            prompt_tokens=self.usage.prompt_tokens,
            completion_tokens=self.usage.completion_tokens,
            model_calls=self.usage.calls,
            seconds=time.monotonic() - self.started,
            model_seconds=self.usage.seconds,
            fixed_at_turn=self.fixed_at_turn if best is not None else None,
            error=error,
            transcript_path=self.request.transcript_path,
            function_range=(target.start_line, target.end_line) if target else (0, 0),
            warnings=warnings,
            candidates_checked=self.candidates_checked,
        )

    def close(self) -> None:
        self.transcript.close()
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
    return Session(request, backend, runner, progress, cancel).run()
