from checkout import basket_total, change_due, price_with_tax


def test_food_rate():
    assert price_with_tax(2.0, "food") == 2.11


def test_basket():
    assert basket_total([(10.0, "standard"), (4.0, "food")]) == 16.22


def test_change():
    assert change_due(20.0, [(10.0, "standard")]) == 8.0
