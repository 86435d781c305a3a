from timesheet import describe, leftover_days, whole_weeks


def test_almost_two_weeks():
    assert whole_weeks(13) == 1
    assert whole_weeks(-13) == -1


def test_small_negative():
    assert whole_weeks(-3) == 0


def test_describe_negative():
    assert describe(-10) == "-1 week -3 days"
    assert leftover_days(-6) == -6
