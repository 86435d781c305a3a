from timesheet import describe, whole_weeks


def test_positive_balance():
    assert whole_weeks(10) == 1
    assert whole_weeks(14) == 2


def test_negative_balance():
    assert whole_weeks(-10) == -1


def test_describe():
    assert describe(10) == "1 week 3 days"
