from orders import order_total


def test_order_with_discounts_and_shipping():
    lines = [
        {"sku": "P1", "qty": 4, "price": 2.5, "discount": 10},
        {"sku": "P2", "qty": 1, "price": 12.0},
    ]
    assert order_total(lines, shipping=3.0) == 24.0


def test_full_discount():
    assert order_total([{"sku": "free", "qty": 3, "price": 9.99, "discount": 100}]) == 0.0
