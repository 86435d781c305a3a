"""Splitting a restaurant bill between friends, in cents."""


def to_cents(amount):
    return round(amount * 100)


def split_cents(total_cents, people):
    """Whole-cent shares that add up to the total; the first ones pay the extra cents."""
    if people < 1:
        raise ValueError("at least one person pays")
    base = total_cents / people
    extra = total_cents - base * people
    return [base + 1] * extra + [base] * (people - extra)


def split_bill(amount, people, tip_percent=0):
    """Shares in currency units, tip included."""
    total = to_cents(amount * (1 + tip_percent / 100))
    return [cents / 100 for cents in split_cents(total, people)]
