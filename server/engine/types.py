"""Typed input and output of one self-debugging session: what the CLI, the LSP server and the
benchmark hand to `engine.run_session` and get back."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:
    from selfdebug.server.runner.results import RunResult

from selfdebug.server.engine.model_calls.failed_calls import FailedCall
from selfdebug.server.engine.search.localize import SuspiciousLine

# The feedback modes, named once; what each one does is in modes.py (`STRATEGIES`), and everything
# else derives from these two: the CLI's --mode choices, the server's `mode` setting and command
# argument (typed `Mode`, checked against the Literal), the benchmark's default modes.
# tests/test_vocabulary.py checks the editors' manifest against them. `auto` is a plan of modes
# (after the edit search); `search` makes no model call (search/edit_search.py).
Mode = Literal["auto", "none", "simple", "ut", "explain", "trace", "print", "probe", "search"]
MODES: tuple[Mode, ...] = get_args(Mode)

StopReason = Literal[
    "passed",  # all chosen tests pass (and the wider guard holds)
    "max_turns",
    "no_improvement",  # 3 consecutive turns without more chosen tests passing
    "token_budget",
    "time_budget",
    "cancelled",
    "already_passing",  # nothing to fix: the chosen tests pass before any change
    "error",  # a backend/runner error ended the session (see DebugResult.error)
]

# The user's total time for one self-debug (`fix --time-budget`, `timeBudgetSeconds`): one
# function's session, or the whole walk from a failing test across its suspects. Chosen from
# the real dev cases on 2 cores with the 1.5B model (docs/bench/real-dev-auto-1.5b/
# 2026-12-06-3b08ba4 and real-dev-from-failure-auto-1.5b/*): every fix a session found took
# at most 105 s with the function given and 351 s from the failure (cachetools `__get__`, a
# model turn, on a machine shared with the test suite), while the cases it could not fix ran
# up to 328 s and 470 s (and longer with the users' 10 turns instead of the bench's 3). Six
# minutes keeps every fix measured and ends the unfixable ones sooner; the budget stops the
# session cleanly, with the best partial fix it has (stop reason `time_budget`).
DEFAULT_TIME_BUDGET_S = 360.0


@dataclass(frozen=True)
class TargetSpec:
    """Which function a session debugs and against which tests, as asked (target.py's
    TargetFunction is the function once located in the text)."""

    file: Path  # the user's file (absolute)
    qualname: str  # "func", "Class.method", "outer.inner"
    project_root: Path
    tests: list[str]  # chosen pytest node ids (visible to the model)
    wider_tests: list[str] = field(default_factory=list)  # regression guard, never shown
    source_override: str | None = None  # the editor's unsaved buffer text for `file`
    # Other files' text that every run of the session uses in place of the user's: an edit
    # already made in another function, under which this one is searched (a two-function fix).
    pinned_files: Mapping[Path, str] = field(default_factory=dict)
    tests_found_by: str = ""  # how `tests` were chosen, one line (request.choose_tests)


@dataclass(frozen=True)
class Budget:
    """How much a session may spend, and when it stops: turns, tokens, time, each test's and
    each model call's limits, and how many candidates each generator may try."""

    max_turns: int = 10
    token_budget: int | None = None  # prompt+completion tokens over the session
    time_budget_s: float | None = None
    test_timeout_s: float = 10.0  # per test
    no_improvement_limit: int = 3  # turns in a row without more chosen tests passing
    # A call is stopped when it made no progress (no prompt batch, no token) for this long
    # (modelStallSeconds, --stall-limit), or when the session's time budget is spent.
    model_stall_s: float = 40.0
    # A fixed total per call on top of that (modelCallDeadline, --call-deadline); 0: none.
    model_call_deadline_s: float = 0.0
    max_edits: int = 300  # edit search (mode `search`, first step of `auto`): candidates at most
    # `auto`, when the search finds nothing: the model writes the suspicious lines anew, many
    # samples judged like the search's edits (engine/model_edits/), `model_edit_samples` per hole;
    # this cap in seconds is the reference machine's, scaled up on a slower one (model_edits/
    # step.py, `step_cap_s`); 0: off
    model_edits_s: float = 90.0
    # fixes and the search's survivors run against the original on inputs made from the tests'
    # own calls (engine/crosscheck.py); 0: not checked
    generated_inputs: int = 200


@dataclass(frozen=True)
class ModelOptions:
    """How the model is asked: sampling, answer length, the prompts and what the logs show."""

    samples: int = 1  # n candidates per generation; >1 samples at temperature 0.7 and votes
    max_tokens: int | None = None  # per model call; None: the step's default (modes.py)
    temperature: float = 0.7  # used only when samples > 1 (greedy otherwise)
    # model edits (`Budget.model_edits_s`), per hole: one greedy, the rest at temperature 0.8
    model_edit_samples: int = 8
    # automatic probes in `probe` mode; `lines` (assignments too) by measurement: its log shows a
    # line the reference fix changes in more dev problems than `blocks`, for a longer log and a
    # little more run time (`selfdebug bench probes`, docs/bench/probes/)
    probe_level: Literal["blocks", "lines"] = "lines"
    log_chars: int = 4000  # probe/print log shown to the model, truncated with a marker
    prompts_dir: Path | None = None  # overrides templates by name (also env SELFDEBUG_PROMPTS_DIR)


@dataclass(frozen=True)
class Reporting:
    """What a session writes down besides its result."""

    transcript_path: Path | None = None  # JSON lines; written as the session goes
    # the transcript lists every candidate the judge saw (program hash, fate): the benchmark's
    # repair funnel (bench/funnel.py); off for users, as hashing costs ~1-7 ms a candidate
    record_candidates: bool = False


@dataclass
class DebugRequest:
    """One session's input: what it debugs (`target`), what runs (`mode`, `auto_search`), and
    its limits, model options and records, each group with its defaults. Front ends that set
    options by their flat names go through `request.with_options`."""

    target: TargetSpec
    mode: Mode = "auto"
    auto_search: bool = True  # `auto` runs the edit search before its first model call
    budget: Budget = field(default_factory=Budget)
    model: ModelOptions = field(default_factory=ModelOptions)
    reporting: Reporting = field(default_factory=Reporting)


@dataclass
class Progress:
    """One progress event; `percentage` is 0..100 over the whole session."""

    turn: int
    max_turns: int
    phase: str  # "running 3 tests", "asking the model", "checking candidate", ...
    percentage: int
    message: str = ""
    mode: str = ""  # the mode the turn runs in ("" before it is known)
    model: str = ""  # how far the running model call has come ("model: 140 tokens, 6 tok/s")
    # Set once, on the event right after the baseline run (the chosen tests on the unmodified
    # text): a front end can show those failures at once instead of running the tests again.
    baseline: RunResult | None = None


ProgressCallback = Callable[[Progress], None]


@dataclass
class TestTally:
    passed: int
    total: int

    def __str__(self) -> str:
        return f"{self.passed}/{self.total}"


@dataclass(frozen=True)
class Alternatives:
    """Fixes that all pass the tests, which the tests cannot choose between, and the input
    that tells them apart when one was found: what a script reads instead of the caveat."""

    edits: tuple[str, ...]  # one per behaviour, described ("line 4: `n` -> `n + 1`")
    call: str = ""  # the input that tells them apart, as a call: `f([3, 3, 1])`; "": none found
    results: tuple[str, ...] = ()  # each edit's result on it, in `edits` order ("returns 7")


@dataclass
class DebugResult:
    stop_reason: StopReason
    turns: int
    mode: Mode  # the mode actually used (auto resolved, unless the session ended before)
    original_function: str  # source text of the function before
    fixed_function: str | None  # best candidate's function source, None when no candidate
    fixed_file: str | None  # whole new file text, None when no candidate
    diff: str  # unified diff of the file ("" when no candidate)
    explanation: str  # the model's explanation of the bug ("" when none)
    chosen_before: TestTally
    chosen_after: TestTally | None  # for the proposed candidate
    wider_before: TestTally | None = None
    wider_after: TestTally | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_calls: int = 0
    seconds: float = 0.0
    model_seconds: float = 0.0
    fixed_at_turn: int | None = None
    error: str = ""
    transcript_path: Path | None = None
    function_range: tuple[int, int] = (0, 0)  # 0-based [start_line, end_line) of the original def
    warnings: list[str] = field(default_factory=list)  # e.g. a candidate newly uses subprocess
    candidates_checked: int = 0  # model candidates that passed the structural checks
    found_by: str = ""  # "edit search at line 7" when the search found the fix; "": the model
    suspicious: list[SuspiciousLine] = field(default_factory=list)  # most suspicious first
    localization_note: str = ""  # e.g. "no passing test: lines ranked by failing runs only"
    # Model calls that gave no answer (stalled, past a deadline, failed): each ended its turn,
    # not the session (model_calls/failed_calls.py).
    failed_calls: list[FailedCall] = field(default_factory=list)
    # What the tests could not tell about the proposed fix ("2 fixes pass; they differ on
    # f(0): ...", "checked only by the 3 chosen tests"); "" when nothing is known against it.
    caveat: str = ""
    # Candidates refused as overfitting (overfitting.py), each with why, like failed candidates.
    refused: list[str] = field(default_factory=list)
    # The caveat's fixes, structured: the proposed fix's rivals, or the edits none of which is
    # proposed because the tests cannot choose; None when no such edits were found.
    alternatives: Alternatives | None = None

    @property
    def success(self) -> bool:
        """A candidate passes every chosen test and breaks no wider test that passed before."""
        return self.fixed_function is not None and self.stop_reason == "passed"

    def summary(self) -> str:
        after = f"passes {self.chosen_after} chosen" if self.chosen_after else "no candidate"
        wider = f", {self.wider_after} wider" if self.wider_after else ""
        if self.found_by and self.chosen_after:
            wider += f"; found by {self.found_by}"
        calls = f"{self.model_calls} model call{'' if self.model_calls == 1 else 's'}"
        if self.failed_calls:
            failed = len(self.failed_calls)
            calls += f", {failed} failed call{'' if failed == 1 else 's'}"
        return (
            f"{after}{wider} (before: {self.chosen_before} chosen); stop: {self.stop_reason}; "
            f"{calls}"
        )
