from loans import schedule, total_paid


def test_months_are_numbered_from_one():
    assert [row[0] for row in schedule(300, 3)] == [1, 2, 3]


def test_paid_off_at_the_end():
    rows = schedule(1000, 3)
    assert rows[-1][2] == 0.0
    assert total_paid(rows) == 1000.0


def test_one_month_loan():
    assert schedule(99.99, 1) == [(1, 99.99, 0.0)]
