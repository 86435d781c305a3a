from listing import page_offset, page_size


def test_default_page():
    assert page_offset({}) == 0


def test_offset_from_query_string():
    assert page_offset({"page": "3", "size": "10"}) == 20


def test_size_is_capped():
    assert page_size({"size": "500"}) == 100
