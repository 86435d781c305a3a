from datetime import date

from calendar_days import add_business_days, due_date, is_business_day


def test_weekend_is_not_a_business_day():
    assert not is_business_day(date(2024, 3, 9))
    assert not is_business_day(date(2024, 3, 10))


def test_add_over_a_holiday():
    assert add_business_days(date(2024, 4, 30), 1) == date(2024, 5, 2)


def test_due_date_over_christmas():
    assert due_date(date(2024, 12, 20), 3) == date(2024, 12, 26)
