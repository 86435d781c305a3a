"""Invoice totals for a small grocery wholesaler (quantities may be in kg)."""

VAT_RATE = 0.2


def bulk_discount(quantity):
    """10% off from 10 units, 20% off from 50 units."""
    if quantity >= 50:
        return 0.2
    if quantity > 10:
        return 0.1
    return 0.0


def line_total(quantity, unit_price):
    """A line's price after its bulk discount, rounded to cents."""
    return round(quantity * unit_price * (1 - bulk_discount(quantity)), 2)


def invoice_total(lines):
    """Sum of the lines plus VAT."""
    net = sum(line_total(q, p) for q, p in lines)
    return round(net * (1 + VAT_RATE), 2)
