from importer import read_rows, validate_rows

CSV = "sku,name,price\nA1,Mug,4.50\nA2,,3\nA3,Cap,-1\n"


def test_clean_file():
    assert validate_rows(read_rows("sku,name,price\nA1,Mug,4.50\n")) == []


def test_every_bad_row_is_reported():
    assert validate_rows(read_rows(CSV)) == [(3, "missing name"), (4, "negative price")]
