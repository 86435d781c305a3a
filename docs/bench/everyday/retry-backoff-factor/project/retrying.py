"""Retrying flaky HTTP calls in a small sync script."""

import time


def backoff_delays(attempts, base=1.0, factor=1.0, cap=30.0):
    """The waits before each retry: base, base*factor, base*factor**2, ... capped at `cap`."""
    return [min(cap, base * factor**i) for i in range(attempts)]


def retry(call, attempts=4, sleep=time.sleep, **backoff):
    """Call `call()` until it does not raise ConnectionError; the last error is raised."""
    delays = backoff_delays(attempts - 1, **backoff)
    for delay in delays:
        try:
            return call()
        except ConnectionError:
            sleep(delay)
    return call()


def total_wait(attempts, **backoff):
    """How long `retry` may sleep in all, for the script's progress message."""
    return sum(backoff_delays(attempts - 1, **backoff))
