from uploads import is_allowed, split_name


def test_simple_name():
    assert split_name("cv.PDF") == ("cv", "pdf")


def test_name_with_dots():
    assert split_name("report.final.pdf") == ("report.final", "pdf")


def test_allowed():
    assert is_allowed("scan.png")
    assert not is_allowed("notes")
