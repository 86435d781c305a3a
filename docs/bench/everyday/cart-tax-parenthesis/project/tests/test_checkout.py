import pytest

from checkout import change_due, price_with_tax


def test_price_with_tax():
    assert price_with_tax(10.0) == 12.0


def test_not_enough_paid():
    with pytest.raises(ValueError):
        change_due(1.0, [(10.0, "food")])
