"""Overtime balances on a timesheet: days owed (+) or taken in advance (-)."""


def whole_weeks(days):
    """Complete weeks in a balance of `days`, toward zero: -10 days is -1 week (and 3 days)."""
    return days // 7


def leftover_days(days):
    return days - 7 * whole_weeks(days)


def describe(days):
    """'1 week 3 days', '-1 week -3 days', '0 weeks 0 days'."""
    weeks, rest = whole_weeks(days), leftover_days(days)
    return f"{weeks} week{'s' if abs(weeks) != 1 else ''} {rest} day{'s' if abs(rest) != 1 else ''}"


def balance(entries):
    """Days owed from (kind, days) entries: 'overtime' adds, 'leave' takes."""
    signs = {"overtime": 1, "leave": -1}
    return sum(signs[kind] * days for kind, days in entries)
