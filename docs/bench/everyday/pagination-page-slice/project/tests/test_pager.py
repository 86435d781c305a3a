from pager import page_count, page_label, page_slice


def test_page_count():
    assert page_count(45, 10) == 5
    assert page_count(0, 10) == 1


def test_first_page_is_full():
    assert page_slice(list(range(25)), 1, 10) == list(range(10))


def test_page_label():
    assert page_label(45, 2, 10) == "Showing 11-20 of 45"
