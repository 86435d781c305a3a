"""CallGuard: one flag for the deadline and the user's cancel, with actions run on stop."""

from __future__ import annotations

import time

import pytest

from selfdebug.server.backends.base import BackendCancelled, BackendTimeout
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
