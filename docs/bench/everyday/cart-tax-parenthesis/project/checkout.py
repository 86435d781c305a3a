"""Checkout sums for a market stall's tablet till."""

TAX_RATES = {"food": 0.055, "standard": 0.2}


def price_with_tax(price, category="standard"):
    """The price including its category's tax, rounded to cents."""
    rate = TAX_RATES[category]
    return round(price * 1 + rate, 2)


def basket_total(items):
    """Sum of (price, category) items with tax."""
    return round(sum(price_with_tax(p, c) for p, c in items), 2)


def change_due(paid, items):
    due = basket_total(items)
    if paid < due:
        raise ValueError(f"short by {due - paid:.2f}")
    return round(paid - due, 2)
