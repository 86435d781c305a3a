"""Gym memberships: renewal dates and reminders."""

from datetime import date, timedelta


def renewal_date(start, years=1):
    """The same day `years` later; Feb 29 renews on Feb 28 in a non-leap year."""
    renewal = start
    try:
        start.replace(year=start.year + years)
    except ValueError:
        renewal = start.replace(year=start.year + years, day=28)
    return renewal


def reminder_date(start, days_before=14):
    return renewal_date(start) - timedelta(days=days_before)


def due_for_reminder(members, today):
    """Names whose reminder date is today."""
    return sorted(name for name, start in members.items() if reminder_date(start) == today)


EPOCH = date(2000, 1, 1)
