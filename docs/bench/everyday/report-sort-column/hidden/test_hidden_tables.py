from tables import sort_rows


def test_dict_rows_by_key():
    rows = [{"name": "b", "n": 2}, {"name": "a", "n": 5}]
    assert sort_rows(rows, "name") == [{"name": "a", "n": 5}, {"name": "b", "n": 2}]


def test_first_column_descending():
    assert sort_rows([(1, "x"), (3, "y"), (2, "z")], 0, descending=True) == [
        (3, "y"), (2, "z"), (1, "x")]


def test_empty_string_key():
    rows = [{"": 2}, {"": 1}]
    assert sort_rows(rows, "") == [{"": 1}, {"": 2}]
