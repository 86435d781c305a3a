import pytest

from listing import page_offset, sql_limit


def test_sql_limit():
    assert sql_limit({"page": "2"}) == "LIMIT 20 OFFSET 20"


def test_page_zero_rejected():
    with pytest.raises(ValueError):
        page_offset({"page": "0"})


def test_padded_number():
    assert page_offset({"page": " 4 ", "size": "5"}) == 15
