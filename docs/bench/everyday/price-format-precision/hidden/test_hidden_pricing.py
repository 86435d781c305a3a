from pricing import format_price, shelf_tag


def test_small_amounts():
    assert format_price(0.5) == "0.50 EUR"
    assert format_price(7) == "7.00 EUR"


def test_large_amount_and_currency():
    assert format_price(1234567.891, "USD") == "1,234,567.89 USD"


def test_shelf_tag():
    assert shelf_tag("Dune", 10.0) == "Dune                     14.00 EUR"
