from orders import line_total, summary


def test_plain_line():
    assert line_total({"sku": "A5", "qty": 2, "price": 3.5}) == 7.0


def test_discounted_line():
    assert line_total({"sku": "A4", "qty": 1, "price": 20.0, "discount": 25}) == 15.0


def test_summary():
    assert summary([{"qty": 1}, {"qty": 2}]) == "3 items, 2 lines"
