from datetime import date

from membership import due_for_reminder, renewal_date


def test_several_years():
    assert renewal_date(date(2021, 7, 31), years=3) == date(2024, 7, 31)


def test_leap_day_to_leap_year():
    assert renewal_date(date(2020, 2, 29), years=4) == date(2024, 2, 29)


def test_due_for_reminder():
    members = {"ana": date(2023, 6, 15), "bo": date(2023, 6, 16)}
    assert due_for_reminder(members, date(2024, 6, 1)) == ["ana"]
