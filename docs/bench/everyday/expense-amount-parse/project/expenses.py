"""Reading amounts typed into an expense report ("1,234.50", "12", "n/a")."""

from decimal import Decimal, InvalidOperation


def parse_amount(text):
    """The amount as a Decimal, or None when the text is not a number."""
    cleaned = text.strip().replace(",", "")
    if not cleaned:
        return None
    try:
        return Decimal(cleaned)
    except ValueError:
        return None


def total(lines):
    """Sum of the readable amounts; the unreadable lines are listed, not summed."""
    amounts = [(line, parse_amount(line)) for line in lines]
    good = sum((a for _, a in amounts if a is not None), Decimal("0"))
    bad = [line for line, a in amounts if a is None]
    return good, bad
