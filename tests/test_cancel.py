"""CancelToken: callbacks run once, at cancel time, from whichever thread cancels."""

import threading

import pytest

from selfdebug.server.cancel import Cancelled, CancelToken


def test_callbacks_run_once_at_cancel_and_late_registration_runs_at_once():
    token = CancelToken()
    calls: list[str] = []
    token.on_cancel(lambda: calls.append("early"))
    assert calls == []
    token.cancel("user asked")
    token.cancel("again")  # second cancel is a no-op
    assert calls == ["early"]
    assert token.reason == "user asked"
    token.on_cancel(lambda: calls.append("late"))
    assert calls == ["early", "late"]


def test_unregistered_callback_does_not_run_and_a_failing_one_does_not_stop_others():
    token = CancelToken()
    calls: list[str] = []
    unregister = token.on_cancel(lambda: calls.append("removed"))
    token.on_cancel(lambda: 1 / 0)
    token.on_cancel(lambda: calls.append("kept"))
    unregister()
    token.cancel()
    assert calls == ["kept"]


def test_wait_wakes_up_when_another_thread_cancels():
    token = CancelToken()
    threading.Timer(0.05, token.cancel).start()
    assert token.wait(5.0) is True
    with pytest.raises(Cancelled):
        token.raise_if_cancelled()
