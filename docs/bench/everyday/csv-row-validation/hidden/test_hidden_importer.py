from importer import read_rows, validate_rows


def test_two_problems_in_one_row():
    rows = read_rows("sku,name,price\n,Mug,abc\n")
    assert validate_rows(rows) == [(2, "missing sku"), (2, "price is not a number")]


def test_problems_after_good_rows():
    rows = read_rows("sku,name,price\nA,B,1\nC,D,2\n,E,3\n")
    assert validate_rows(rows) == [(4, "missing sku")]
