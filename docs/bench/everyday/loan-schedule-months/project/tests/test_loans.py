from loans import monthly_payment, schedule


def test_monthly_payment():
    assert monthly_payment(1200, 12) == 100.0


def test_schedule_has_every_month():
    assert len(schedule(1200, 12)) == 12


def test_first_row():
    month, payment, balance = schedule(1000, 4)[0]
    assert (payment, balance) == (250.0, 750.0)
