from decimal import Decimal

from expenses import parse_amount


def test_amount_with_separators():
    assert parse_amount("1,234.50") == Decimal("1234.50")


def test_unreadable_amount_is_none():
    assert parse_amount("n/a") is None


def test_blank():
    assert parse_amount("  ") is None
