from billsplit import split_bill, split_cents


def test_even_split():
    assert split_cents(900, 3) == [300, 300, 300]


def test_uneven_split():
    assert split_cents(1000, 3) == [334, 333, 333]


def test_split_bill_with_tip():
    assert split_bill(40.0, 2, tip_percent=10) == [22.0, 22.0]
