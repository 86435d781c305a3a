"""Price labels for a bookshop's shelf tags."""

CURRENCY = "EUR"


def apply_markup(cost, markup_percent):
    return round(cost * (1 + markup_percent / 100), 2)


def format_price(amount, currency=CURRENCY):
    """'1,234.50 EUR': thousands separated, always two decimals."""
    return f"{amount:,.2} {currency}"


def shelf_tag(title, cost, markup_percent=40):
    price = apply_markup(cost, markup_percent)
    return f"{title[:24]:<24} {format_price(price)}"


def price_band(amount):
    """The shelf colour: green under 10, blue under 25, red above."""
    if amount < 10:
        return "green"
    return "blue" if amount < 25 else "red"
