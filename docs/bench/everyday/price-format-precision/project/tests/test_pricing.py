from pricing import apply_markup, format_price


def test_markup():
    assert apply_markup(10.0, 40) == 14.0


def test_format_price():
    assert format_price(1234.5) == "1,234.50 EUR"
