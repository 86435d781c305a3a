"""Per-call model deadlines: by default none, only the stall limit (issue 24); a configured one
scales with the backend's measured speed (issue 12): the configured deadline until a call has
been timed, then more for a call the measured speed says needs more, never less than configured,
never past the session's time budget."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.sumproj import ONE, THREE, copy_project, make_request

from selfdebug.server.backends.base import Completion
from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import run_session
from selfdebug.server.engine.model_calls.call_deadline import (
    MARGIN,
    SLACK_S,
    Speed,
    SpeedMeter,
    call_deadline,
)
from selfdebug.server.runner import ProjectRunner, RunnerSettings

WRONG = (  # long enough (in words, the scripted backend's tokens) to time its generation
    "Bug: the loop starts at the wrong place and the total is wrong for every n that the tests"
    " use, so the function should return a different constant instead of summing the range.\n"
    "```python\ndef sum_to(n):\n    return -{{REQUEST_NUMBER}}\n```\n"
)


def test_the_configured_deadline_holds_until_a_call_is_timed():
    assert call_deadline(120.0, 3000, 1024, None) == 120.0


def test_no_configured_deadline_means_no_fixed_total():
    assert call_deadline(0.0, 3000, 1024, Speed(prompt_tok_s=5.0, gen_tok_s=1.0)) is None


def test_a_slow_backend_gets_the_time_its_speed_says_with_a_margin():
    slow = Speed(prompt_tok_s=80.0, gen_tok_s=16.0)  # the 1.5B model on 2 cores
    needed = MARGIN * (3000 / 80.0 + 1024 / 16.0) + SLACK_S
    assert call_deadline(120.0, 3000, 1024, slow) == pytest.approx(needed)
    assert needed > 120.0
    fast = Speed(prompt_tok_s=5000.0, gen_tok_s=150.0)
    assert call_deadline(120.0, 3000, 1024, fast) == 120.0  # never less than configured


def test_the_meter_learns_each_side_from_calls_large_enough_to_time():
    meter = SpeedMeter()
    tiny = Completion(["x"], prompt_tokens=10, completion_tokens=2, seconds=1.0, prompt_seconds=0.5)
    meter.observe(tiny)
    assert meter.speed is None
    meter.observe(
        Completion(
            ["x"], prompt_tokens=800, completion_tokens=200, seconds=20.0, prompt_seconds=10.0
        )
    )
    assert meter.speed == Speed(prompt_tok_s=80.0, gen_tok_s=20.0)
    cached = Completion(
        ["x"], 800, 100, seconds=6.0, prompt_seconds=1.0, cached_prompt_tokens=760
    )  # 40 tokens evaluated in 1 s: the cache, not the model, made the prompt fast
    meter.observe(cached)
    assert meter.speed == Speed(prompt_tok_s=40.0, gen_tok_s=20.0)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory, "deadline")


@pytest.fixture(scope="module")
def runner(project):
    with ProjectRunner(project, RunnerSettings(test_timeout_s=10)) as shared:
        yield shared


def test_later_calls_of_a_slow_backend_get_longer_deadlines(project, runner):
    backend = ScriptedBackend([WRONG], speed=(20.0, 4.0))  # a slow machine, played
    request = make_request(
        project, tests=[THREE, ONE], mode="ut", max_turns=3, model_call_deadline_s=60.0
    )
    result = run_session(request, backend, runner=runner)
    assert result.model_calls == 3
    first, second, third = (r.deadline_s for r in backend.requests)
    assert first == 60.0  # nothing timed yet: the configured deadline
    assert second > 60.0 and third > 60.0  # 20 prompt tok/s: hundreds of tokens take minutes


def test_a_fast_backend_keeps_the_configured_deadline(project, runner):
    backend = ScriptedBackend([WRONG], speed=(5000.0, 500.0))
    request = make_request(
        project, tests=[THREE, ONE], mode="ut", max_turns=2, model_call_deadline_s=60.0
    )
    run_session(request, backend, runner=runner)
    assert [r.deadline_s for r in backend.requests] == [60.0, 60.0]


def test_the_session_budget_still_bounds_a_scaled_deadline(project, runner):
    backend = ScriptedBackend([WRONG], speed=(20.0, 4.0))
    request = make_request(
        project,
        tests=[THREE, ONE],
        mode="ut",
        max_turns=3,
        model_call_deadline_s=60.0,
        time_budget_s=90.0,
    )
    run_session(request, backend, runner=runner)
    assert all(r.deadline_s <= 90.0 for r in backend.requests)


def test_by_default_a_call_has_only_the_stall_limit(project, runner):
    backend = ScriptedBackend([WRONG])
    run_session(make_request(project, tests=[THREE, ONE], max_turns=1), backend, runner=runner)
    assert backend.requests[0].deadline_s is None and backend.requests[0].stall_s == 40.0
