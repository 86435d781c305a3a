from datetime import date

from membership import reminder_date, renewal_date


def test_renews_a_year_later():
    assert renewal_date(date(2023, 5, 1)) == date(2024, 5, 1)


def test_leap_day():
    assert renewal_date(date(2024, 2, 29)) == date(2025, 2, 28)


def test_reminder():
    assert reminder_date(date(2023, 5, 15)) == date(2024, 5, 1)
