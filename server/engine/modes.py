"""The debugging modes as strategies: which prompt step fixes the code, what a turn does before
the fix call (print mode: the model's own prints; probe mode: automatic probes, both run for real),
which fixes a mode refuses, and how `auto` plans its modes (see docs/MODES.md).

The session's loop is the same for every mode; everything that differs between modes is here.
"""

from __future__ import annotations

import dataclasses
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from selfdebug.server.engine import feedback
from selfdebug.server.engine.answers.candidate import count_print_calls, extract_code
from selfdebug.server.engine.types import MODES, DebugRequest, Mode

if TYPE_CHECKING:
    from selfdebug.server.backends.base import Completion
    from selfdebug.server.engine.model_calls.prompting import PromptVars, RenderedPrompt
    from selfdebug.server.engine.target import TargetFunction
    from selfdebug.server.runner.results import RunResult


class Workbench(Protocol):
    """What a mode's own step may use of the running session."""

    request: DebugRequest
    target: TargetFunction
    source: str
    current_code: str
    current_run: RunResult | None
    check_error: str

    def emit(self, phase: str, fraction: float = 0.0) -> None: ...

    def record(self, event: str, **fields: Any) -> None: ...

    def ask(
        self, step: str, variables: PromptVars, n: int = 1
    ) -> tuple[RenderedPrompt, Completion]: ...

    def prompt_vars(self, **extra: Any) -> PromptVars: ...

    def run_tests(
        self, nodeids: list[str], source: str, *, label: str, probes: bool = False
    ) -> RunResult: ...

    def source_with(self, code: str) -> str: ...


@dataclass(frozen=True)
class ModeStrategy:
    """A mode that asks for the fix straight away (simple, ut, explain, trace, none)."""

    name: Mode
    fix_step: str  # prompt template of the fixing call
    asks: str  # what the fixing call asks the model for (the progress text of that step)
    shows_failures: bool = True  # the prompt includes the failing tests' real results
    needs_tests: bool = True  # without tests the session falls back to `explain`
    loops: bool = True  # False: one single-shot repair (the benchmark baseline)
    in_editors: bool = True  # offered by the editors' `mode` setting (package.json's enum)
    strips_prints: bool = False  # the model's debugging prints are taken out of its fixes
    uses_model: bool = (
        True  # False: `search` (small edits judged by the tests; search/edit_search.py)
    )
    # What a session of this mode runs before the model's turns (session/plan.py builds its
    # steps from these): the edit search after localization (`search`; `auto`, unless the
    # request's `auto_search` is off), then the model's local edits at the suspicious lines.
    searches: bool = False
    edits_locally: bool = False
    search_hint_turn: int = 0  # the first turn whose prompt shows the search's undecided edits
    # After the plan's last mode, this many turns in a row without gain end the session
    # (AUTO_TURNS_WITHOUT_GAIN); 0: only the request's `no_improvement_limit` does.
    turns_without_gain: int = 0

    def runs_search(self, request: DebugRequest) -> bool:
        """The edit search runs in this request: a mode that searches, unless it also asks the
        model and the request turned the search off (`auto_search`)."""
        return self.searches and (not self.uses_model or request.auto_search)

    def search_then_model(self, request: DebugRequest) -> bool:
        """The edit search first, then the model (`auto` with its search): a walk from a
        failure runs the two as stages, and a model's near miss is searched on."""
        return self.uses_model and self.runs_search(request)

    def runs_local_edits(self, request: DebugRequest) -> bool:
        """The model's local edits run (and vote among fixes the tests cannot tell apart)."""
        return self.edits_locally and request.budget.model_edits_s > 0

    def before_fix(self, bench: Workbench) -> dict[str, str] | None:
        """Extra prompt variables for the fix call; None ends the turn without a fix call
        (`bench.check_error` then says why)."""
        return {}

    def refuses(self, code: str, original: str) -> str:
        """Why this mode cannot use a structurally valid fix ("" when it can)."""
        return ""


def _logged_run(
    bench: Workbench, failing: str, instrumented: str, kind: str, code_with_prints: str = ""
) -> dict[str, str]:
    """Run the failing test on an instrumented copy; the log's prompt variables."""
    bench.emit(f"running {failing} with logging", 0.15)
    run = bench.run_tests([failing], instrumented, label="log", probes=True)
    test = run.by_id().get(failing) or (run.tests[0] if run.tests else None)
    records = test.probes if test is not None else []
    log = feedback.format_log(
        records,
        bench.target.start_line,
        bench.request.model.log_chars,
        capped=bool(test and test.probes_truncated),
        code=bench.current_code,
    )
    bench.record("log", kind=kind, test=failing, log=log)
    return {
        "failing_test": failing,
        "log": log,
        "log_kind": kind,
        "code_with_prints": code_with_prints,
    }


def _failing_test(bench: Workbench) -> str:
    run = bench.current_run
    failing = feedback.first_failing(run) if run is not None else None
    return failing or bench.request.target.tests[0]


@dataclass(frozen=True)
class ProbeMode(ModeStrategy):
    """Hu et al.'s print debugging with automatic probes: the real values inside the function."""

    def before_fix(self, bench: Workbench) -> dict[str, str] | None:
        if bench.current_run is None:
            return {}
        failing = _failing_test(bench)
        return _logged_run(bench, failing, _probed(bench), "probes")


def _probed(bench: Workbench) -> str:
    """The file with automatic probes in the current code (raises InstrumentError)."""
    from selfdebug.instrument import instrument_function
    from selfdebug.server.runner.source_files import decode_source, encode_declared

    bench.emit("inserting probes", 0.05)
    probed = instrument_function(  # the instrumenter reads a file's bytes: its declared encoding
        encode_declared(bench.source_with(bench.current_code)),
        bench.target.qualname,
        bench.request.model.probe_level,
    )
    return decode_source(probed)[0]


@dataclass(frozen=True)
class PrintMode(ModeStrategy):
    """Hu et al.'s print debugging: the model adds prints, we run them, it reads their output.
    When its prints are unusable, the turn falls back to automatic probes (still a real log)."""

    def before_fix(self, bench: Workbench) -> dict[str, str] | None:
        if bench.current_run is None:
            return {}
        from selfdebug.instrument import validate_model_prints

        failing = _failing_test(bench)
        bench.emit("asking the model for print statements", 0.05)
        rendered, completion = bench.ask("add_prints", bench.prompt_vars(failing_test=failing), n=1)
        target = bench.target
        code = extract_code(
            completion.text, target.name, rendered.opens_code_fence, rendered.code_prefix
        )
        if not code:
            bench.check_error = "the answer with print statements held no code"
            return self._traced_instead(bench, failing)
        code = textwrap.dedent(code)
        validation = validate_model_prints(
            bench.current_code, code, first_line=target.start_line + 1
        )
        bench.record("prints_check", ok=validation.ok, reason=validation.reason)
        if not validation.ok:
            bench.check_error = f"the version with prints was not used: {validation.reason}"
            return self._traced_instead(bench, failing)
        instrumented = target.replace_in(bench.source, validation.instrumented)
        return _logged_run(bench, failing, instrumented, "prints", code.rstrip("\n"))

    @staticmethod
    def _traced_instead(bench: Workbench, failing: str) -> dict[str, str] | None:
        """The model's prints are unusable: trace the function with automatic probes, so the
        turn still gets a real log and a fix call; None when probes cannot go in either."""
        from selfdebug.instrument import InstrumentError

        try:
            instrumented = _probed(bench)
        except InstrumentError as error:
            bench.record("probe_check", ok=False, reason=str(error))
            return None
        bench.check_error += "; the log below comes from automatic tracing instead"
        return _logged_run(bench, failing, instrumented, "probes")

    def refuses(self, code: str, original: str) -> str:
        if count_print_calls(code) > count_print_calls(original):
            return "the fix still contains debugging print statements"
        return ""


# One per mode of types.Mode but `auto` (tests/test_vocabulary.py checks that none is missing).
STRATEGIES: dict[Mode, ModeStrategy] = {
    strategy.name: strategy
    for strategy in (
        ModeStrategy(
            "none",
            "fix_ut",
            "asking the model for a one-shot fix",
            needs_tests=False,
            loops=False,
            in_editors=False,
        ),
        ModeStrategy(
            "simple",
            "fix_simple",
            "asking the model for a fix (it is told only pass/fail)",
            shows_failures=False,
            needs_tests=False,
        ),
        ModeStrategy("ut", "fix_ut", "asking the model for a fix from the test results"),
        ModeStrategy(
            "explain",
            "fix_explain",
            "asking the model to explain the code line by line, then fix it",
            needs_tests=False,
        ),
        ModeStrategy(
            "trace", "fix_trace", "asking the model to trace the failing test, then fix it"
        ),
        PrintMode(
            "print",
            "fix_log",
            "asking the model for a fix from the log of its prints",
            strips_prints=True,
        ),
        ProbeMode("probe", "fix_log", "asking the model for a fix from the probe log"),
        # No model call: the session runs the edit search (search/edit_search.py) before its
        # loop, and in this mode stops there. Without tests it ends with an error, never with a
        # model mode.
        ModeStrategy(
            "search",
            "fix_ut",
            "trying small edits at the suspicious lines (no model)",
            needs_tests=False,
            loops=False,
            uses_model=False,
            searches=True,
        ),
    )
}

AUTO_TURNS_WITHOUT_GAIN = 2
"""`auto` stops after this many turns in a row of its last mode without gain. One was too few:
the model's second turn is the one that sees the first turn's real results and the search's
undecided edits (`search_hint_turn`), and with a plan of one mode a single turn would end
the Self-Debugging loop before any feedback reached the model."""

# `auto` is a plan (plan_modes): the edit search, the model's local edits, then its turns' modes,
# each with its own strategy. Its `fix_step` and `asks` are `ut`'s, the mode its turns start in.
AUTO = ModeStrategy(
    "auto",
    "fix_ut",
    "asking the model for a fix from the test results",
    searches=True,
    edits_locally=True,
    # The search's undecided edits from the second turn on: shown in turn 1 they led the 1.5B
    # model astray (QuixBugs dev find_in_sorted, fixed by a first turn without them), and a
    # near-miss search's note is new evidence for the next turn.
    search_hint_turn=2,
    turns_without_gain=AUTO_TURNS_WITHOUT_GAIN,
)


def strategy_of(mode: Mode) -> ModeStrategy:
    """The strategy of a requested mode, `auto` included: what the session, the walk from a
    failure and the CLI decide by, instead of the mode's name."""
    return AUTO if mode == "auto" else STRATEGIES[mode]


def search_stage(request: DebugRequest) -> DebugRequest:
    """A search-then-model request's edit search, alone: the first stage of a walk from a
    failure (suspects/repair.py), and a search beside another function's partial fix."""
    return dataclasses.replace(request, mode="search")


def model_stage(request: DebugRequest) -> DebugRequest:
    """A search-then-model request's model steps, its search left out (the walk ran it)."""
    return dataclasses.replace(request, auto_search=False)


# The modes the editors offer in their `mode` setting, in this order.
EDITOR_MODES: tuple[Mode, ...] = tuple(mode for mode in MODES if strategy_of(mode).in_editors)


# Answer budget (max_tokens) per prompt step when the request sets none. The reasoning steps ask
# for an explanation, a trace or a log analysis before the code, so they get room for both: a cut
# answer loses the code and wastes the turn. A cut answer is asked again once, for code only,
# with twice the budget (at most RETRY_MAX_TOKENS).
STEP_MAX_TOKENS: dict[str, int] = {
    "fix_simple": 768,
    "fix_ut": 768,
    "fix_explain": 1536,
    "fix_trace": 1536,
    "add_prints": 768,
    "fix_log": 1280,
}
RETRY_MAX_TOKENS = 3072


@dataclass(frozen=True)
class PlannedMode:
    mode: Mode
    why: str  # shown in the transcript ("" when it is simply the mode asked for)


def plan_modes(requested: Mode, *, has_tests: bool, can_probe: bool) -> list[PlannedMode]:
    """The modes a session runs, in order: the first from turn 1, each next one after a turn that
    gained nothing (no more chosen tests passing). A plain mode is a plan of one.

    `auto` (docs/MODES.md has the table and the measurements behind it): after the edit search
    and the model's local edits (session/steps.py), one whole-function mode, `ut`, because the
    failing tests' real values in the shortest prompt fixed the most with a small local model
    (QuixBugs dev with Qwen2.5-Coder-1.5B, against `probe` and `none`); it goes on while it
    gains, and two turns in a row without gain (AUTO_TURNS_WITHOUT_GAIN) end the session.
    `explain` after it fixed next to nothing on QuixBugs dev and HumanEvalFix dev40 for much of
    the time, far fewer fixes a minute than `ut`'s turn, so it went when the local edits came.
    `probe` and `explain` stay modes of their own.

    Without tests there are no failures to show or run, so every mode that needs them falls back
    to `explain` (the model can still reason about the code on its own). `requested` was checked
    where it came in (CLI choices, the server's settings and command arguments, the benchmark's
    --modes)."""
    if not has_tests:
        if requested == "auto" or STRATEGIES[requested].needs_tests:
            return [PlannedMode("explain", "no tests: explain the code instead")]
        return [PlannedMode(requested, "")]
    if requested == "auto":
        return [PlannedMode("ut", "auto: tests fail; start with their real results")]
    if requested == "probe" and not can_probe:
        return [PlannedMode("explain", "probes cannot be inserted in this function")]
    return [PlannedMode(requested, "")]


def why_no_probes(
    mode: Mode, source: str, qualname: str, probe_level: Literal["blocks", "lines"]
) -> str:
    """Why probes cannot go into this function; "" when they can, or when the requested
    mode would never use them (the instrumenter is not even tried)."""
    if mode != "probe":
        return ""
    try:
        from selfdebug.instrument import instrument_function
        from selfdebug.server.runner.source_files import encode_declared

        instrument_function(encode_declared(source), qualname, probe_level)
    except Exception as error:  # any failure means: no probes for this function
        return f"{type(error).__name__}: {error}"
    return ""
