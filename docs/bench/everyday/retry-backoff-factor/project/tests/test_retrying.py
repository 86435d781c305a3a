from retrying import backoff_delays, retry


def test_default_delays_double():
    assert backoff_delays(4) == [1.0, 2.0, 4.0, 8.0]


def test_retry_until_it_works():
    calls, slept = [], []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise ConnectionError("down")
        return "ok"

    assert retry(flaky, sleep=slept.append) == "ok"
    assert len(slept) == 2
