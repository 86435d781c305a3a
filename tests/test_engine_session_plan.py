"""A session is a pipeline of steps (server/engine/session/): a mode's steps come from its
strategy's flags (plan.py), not from its name, and the pipeline stops at the first step that
gives a stop reason, or at a budget, a cancel or an error in any step."""

from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers.sumproj import FIXTURE, make_request

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine.modes import AUTO, STRATEGIES, plan_modes, strategy_of
from selfdebug.server.engine.recorder import Recorder
from selfdebug.server.engine.session.context import RunContext
from selfdebug.server.engine.session.pipeline import Pipeline, Stop
from selfdebug.server.engine.session.plan import steps_for
from selfdebug.server.engine.target import read_target
from selfdebug.server.engine.transcript import Transcript
from selfdebug.server.engine.types import MODES, StopReason

ROOT = Path(__file__).parent.parent


def names(mode: str, **changes: object) -> list[str]:
    request = make_request(FIXTURE, mode=mode, **changes)
    return [step.name for step in steps_for(strategy_of(request.mode), request)]


def test_search_is_the_baseline_and_the_edit_search_alone():
    assert names("search") == ["baseline", "edit search"]
    search = steps_for(STRATEGIES["search"], make_request(FIXTURE, mode="search"))[1]
    assert getattr(search, "alone", None) is True  # no tests: an error; no fix: the end


def test_auto_is_its_planned_list_and_its_request_switches_turn_steps_off():
    assert names("auto") == ["baseline", "edit search", "model local edits", "model turns"]
    assert names("auto", auto_search=False) == [
        "baseline",
        "localize",
        "model local edits",
        "model turns",
    ]
    assert names("auto", model_edits_s=0) == ["baseline", "edit search", "model turns"]
    turns = steps_for(AUTO, make_request(FIXTURE, mode="auto"))[-1]
    assert getattr(turns, "give_up_after", None) == 2  # AUTO_TURNS_WITHOUT_GAIN


@pytest.mark.parametrize("mode", ["none", "simple", "ut", "explain", "trace", "print", "probe"])
def test_a_model_mode_localizes_then_takes_turns(mode):
    assert names(mode) == ["baseline", "localize", "model turns"]
    turns = steps_for(STRATEGIES[mode], make_request(FIXTURE, mode=mode))[-1]
    assert getattr(turns, "give_up_after", None) == 0  # only no_improvement_limit stops it


def test_the_steps_follow_the_strategys_flags_not_its_name():
    """`ut` given `auto`'s flags runs `auto`'s steps: plan.py reads the strategy alone."""
    request = make_request(FIXTURE, mode="ut")
    like_auto = dataclasses.replace(STRATEGIES["ut"], searches=True, edits_locally=True)
    assert [s.name for s in steps_for(like_auto, request)] == names("auto")
    no_model = dataclasses.replace(STRATEGIES["ut"], uses_model=False, searches=True)
    assert [s.name for s in steps_for(no_model, request)] == names("search")


def test_every_mode_has_a_strategy_and_auto_plans_ut_turns():
    assert {strategy_of(mode).name for mode in MODES} == set(MODES)
    assert [p.mode for p in plan_modes("auto", has_tests=True, can_probe=True)] == ["ut"]


@dataclass
class Said:
    """A step that says `stop` (None: hand on) or raises `error`, and notes that it ran."""

    name: str
    stop: StopReason | None = None
    error: Exception | None = None
    ran: list[str] = field(default_factory=list)

    def run(self, context: RunContext) -> StopReason | None:
        self.ran.append(self.name)
        if self.error is not None:
            raise self.error
        return self.stop


def context_on_sumproj() -> RunContext:
    request = make_request(FIXTURE, mode="ut")
    source, target = read_target(request.target.file, request.target.qualname)
    plan = plan_modes("ut", has_tests=True, can_probe=True)
    recorder = Recorder(Transcript(None))
    return RunContext(
        request,
        ScriptedBackend(["no call"]),
        source,
        target,
        plan,
        runner=None,
        recorder=recorder,
        cancel=None,
        started=time.monotonic(),
    )


def test_the_pipeline_stops_at_the_first_steps_stop_reason():
    ran: list[str] = []
    steps = [
        Said("first", None, ran=ran),
        Said("second", "no_improvement", ran=ran),
        Said("third", "passed", ran=ran),
    ]
    assert Pipeline(steps).run(context_on_sumproj()) == ("no_improvement", "")
    assert ran == ["first", "second"]


def test_a_spent_budget_or_an_error_in_a_step_ends_the_pipeline_as_a_stop_reason():
    context = context_on_sumproj()
    ran: list[str] = []
    spent = Stop("time_budget", "time budget of 5s spent")
    steps = [Said("first", error=spent, ran=ran), Said("second", "passed", ran=ran)]
    assert Pipeline(steps).run(context) == ("time_budget", "")
    assert ran == ["first"]
    events = context.recorder.transcript.events
    assert events[-1]["event"] == "budget" and events[-1]["reason"] == "time_budget"

    broken = [Said("first", error=ValueError("bad value"), ran=ran)]
    assert Pipeline(broken).run(context) == ("error", "ValueError: bad value")
    assert context.recorder.transcript.events[-1]["event"] == "exception"


FEEDBACK_MODE = "|".join(MODES)
NAME_TEST = re.compile(
    rf"""mode\)?\s*(==|!=)\s*["']({FEEDBACK_MODE})["']|["']({FEEDBACK_MODE})["']\s*(==|!=)\s*\S*mode"""
    rf"""|mode\s+(not\s+)?in\s+[(\[{{]\s*["']({FEEDBACK_MODE})["']"""
)


def test_no_code_but_modes_decides_by_a_modes_name():
    """What a mode does is its strategy's (modes.py); elsewhere a decision reads the strategy."""
    tested = []
    for folder in ("server", "selfdebug/commands", "selfdebug/bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.relative_to(ROOT).as_posix() == "server/engine/modes.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if NAME_TEST.search(line):
                    tested.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert tested == []
