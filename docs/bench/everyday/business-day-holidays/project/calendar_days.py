"""Business days for an invoicing tool's due dates."""

from datetime import date, timedelta

HOLIDAYS = {date(2024, 1, 1), date(2024, 5, 1), date(2024, 12, 25)}


def is_business_day(day, holidays=HOLIDAYS):
    """Monday to Friday, and not a holiday."""
    return day.weekday() < 5 or day not in holidays


def add_business_days(start, days, holidays=HOLIDAYS):
    """The date `days` business days after `start`."""
    current = start
    while days > 0:
        current += timedelta(days=1)
        if is_business_day(current, holidays):
            days -= 1
    return current


def due_date(issued, terms_days=10):
    return add_business_days(issued, terms_days)
