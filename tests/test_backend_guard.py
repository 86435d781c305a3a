"""CallGuard: one flag for the stall rule, the deadline and the user's cancel, with actions run on
stop, and the call's progress as it comes."""

from __future__ import annotations

import time

import pytest

from selfdebug.server.backends.base import (
    BackendCancelled,
    BackendStalled,
    BackendTimeout,
    CallProgress,
)
from selfdebug.server.backends.guard import CallGuard
from selfdebug.server.cancel import CancelToken


def test_the_deadline_sets_the_flag_and_runs_stop_actions():
    stopped_at: list[float] = []
    with CallGuard(0.1) as guard:
        guard.on_stop(lambda: stopped_at.append(time.monotonic()))
        assert not guard.stopped
        time.sleep(0.3)
        assert guard.stopped and guard.reason == "deadline"
        with pytest.raises(BackendTimeout, match=r"0\.1 s"):
            guard.raise_if_stopped("the call")
    assert len(stopped_at) == 1


def test_cancel_sets_the_flag_at_once():
    token = CancelToken()
    with CallGuard(60, token) as guard:
        token.cancel()
        assert guard.stopped and guard.reason == "cancelled"
        assert isinstance(guard.error("the call"), BackendCancelled)


def test_an_already_cancelled_token_stops_the_guard_on_entry():
    token = CancelToken()
    token.cancel()
    with CallGuard(60, token) as guard:
        assert guard.stopped


def test_after_exit_neither_timer_nor_token_touch_the_guard():
    token = CancelToken()
    with CallGuard(0.05, token) as guard:
        pass
    token.cancel()
    time.sleep(0.15)
    assert not guard.stopped


def test_an_action_registered_after_stop_runs_at_once():
    ran: list[bool] = []
    with CallGuard(60) as guard:
        guard.stop("cancelled")
        guard.on_stop(lambda: ran.append(True))
    assert ran == [True]


# -- the stall rule (issue 24): no progress for stall_s stops a call, steady progress never --
def test_a_stall_stops_the_call_at_the_stall_limit():
    with CallGuard(None, stall_s=0.3) as guard:
        guard.token()
        last = time.monotonic()
        assert guard.wait(5.0)  # nothing more comes: only the stall rule ends the wait
        stopped_after = time.monotonic() - last
        assert guard.reason == "stalled"
        with pytest.raises(BackendStalled, match=r"no progress for 0\.3 s \(after 1 tokens\)"):
            guard.raise_if_stopped("the call")
    assert 0.3 <= stopped_after < 0.45


def test_a_slow_steady_stream_is_never_stopped_and_reports_its_rate():
    seen: list[CallProgress] = []
    with CallGuard(None, stall_s=0.3, on_progress=seen.append) as guard:
        for _ in range(12):  # 1.8 s in all, six times the stall limit
            assert not guard.wait(0.15)
            guard.token()
        assert not guard.stopped
    assert seen[-1].tokens == 12 and 5.0 < (seen[-1].tokens_per_s or 0) < 8.0
    assert seen[-1].describe().startswith("model: 12 tokens, ")


def test_prompt_evaluation_counts_as_progress():
    seen: list[CallProgress] = []
    with CallGuard(None, stall_s=0.3, on_progress=seen.append) as guard:
        for done in range(0, 2048, 512):  # one batch every 0.2 s: slow, not stalled
            assert not guard.wait(0.2)
            guard.prompt_progress(done + 512, 2048)
        assert not guard.stopped
        assert guard.wait(1.0) and guard.reason == "stalled"
        assert "while reading the prompt, 2048/2048 tokens" in str(guard.error("the call"))
    assert seen[0].describe() == "model: reading the prompt, 512/2048 tokens"


def test_without_limits_only_cancel_stops_a_call():
    token = CancelToken()
    with CallGuard(None, token) as guard:
        assert not guard.wait(0.2) and guard.remaining() == float("inf")
        token.cancel()
        assert guard.wait(0.0) and guard.reason == "cancelled"
