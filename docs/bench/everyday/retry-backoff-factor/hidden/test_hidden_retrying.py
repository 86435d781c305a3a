from retrying import backoff_delays, retry


def test_cap():
    assert backoff_delays(7)[-1] == 30.0


def test_explicit_factor():
    assert backoff_delays(3, base=0.5, factor=3.0) == [0.5, 1.5, 4.5]


def test_retry_sleeps_growing_delays():
    slept = []

    def down():
        raise ConnectionError("down")

    try:
        retry(down, attempts=4, sleep=slept.append)
    except ConnectionError:
        pass
    assert slept == [1.0, 2.0, 4.0]
