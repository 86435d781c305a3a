from tables import render, sort_rows

ROWS = [("pear", 3), ("apple", 7), ("fig", 1)]


def test_unsorted_by_default():
    assert sort_rows(ROWS) == ROWS


def test_sort_by_second_column():
    assert sort_rows(ROWS, 1) == [("fig", 1), ("pear", 3), ("apple", 7)]


def test_sort_by_first_column():
    assert sort_rows(ROWS, 0) == [("apple", 7), ("fig", 1), ("pear", 3)]


def test_render():
    assert render([("a", 1)], [3, 2]) == ["a   1"]
