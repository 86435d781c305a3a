from decimal import Decimal

import pytest

from expenses import parse_amount, total


def test_total_skips_bad_lines():
    assert total(["10.50", "twelve", "2"]) == (Decimal("12.50"), ["twelve"])


def test_several_bad_forms():
    for text in ("12..5", "1.2.3", "--4", "EUR 5"):
        assert parse_amount(text) is None


def test_non_text_is_a_programming_error():
    with pytest.raises(AttributeError):
        parse_amount(12)
