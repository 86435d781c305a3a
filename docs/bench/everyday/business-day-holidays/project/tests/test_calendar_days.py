from datetime import date

from calendar_days import add_business_days, is_business_day


def test_weekday():
    assert is_business_day(date(2024, 3, 5))


def test_holiday_on_a_weekday():
    assert not is_business_day(date(2024, 5, 1))


def test_add_over_a_weekend():
    assert add_business_days(date(2024, 3, 8), 1) == date(2024, 3, 11)
