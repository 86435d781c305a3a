"""The demo's tests (named check_*.py so that selfdebug's own test run does not collect them)."""

from shop import total_price


def test_total_price_of_two():
    assert total_price([3, 4, 5], 2) == 7


def test_total_price_of_three():
    assert total_price([1, 2, 3], 3) == 6


def test_total_price_of_none():
    assert total_price([1, 2, 3], 0) == 0
