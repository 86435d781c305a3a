from pager import page_slice


def test_middle_page():
    assert page_slice(list(range(25)), 2, 10) == list(range(10, 20))


def test_last_partial_page():
    assert page_slice(list(range(25)), 3, 10) == [20, 21, 22, 23, 24]


def test_one_per_page():
    assert page_slice(["a", "b", "c"], 2, 1) == ["b"]


def test_past_the_end():
    assert page_slice([1, 2, 3], 4, 2) == []
