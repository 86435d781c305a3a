from shipping import shipping_cost


def test_exactly_at_threshold():
    assert shipping_cost(50.0, "FR") == 0.0


def test_below_threshold():
    assert shipping_cost(49.99, "FR") == 4.9


def test_large_order_abroad_still_pays():
    assert shipping_cost(120.0, "DE") == 9.9


def test_large_domestic_order():
    assert shipping_cost(499.0, "FR", weight_kg=15) == 0.0
