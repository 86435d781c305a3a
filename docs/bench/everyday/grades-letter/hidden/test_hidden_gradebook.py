from gradebook import letter, report


def test_just_below_b():
    assert letter(79.5) == "C"


def test_just_above_b():
    assert letter(80.5) == "B"


def test_average_of_exactly_eighty():
    assert report({"cy": ([70, 90], [1, 1])}) == {"cy": "B"}


def test_bottom():
    assert letter(59.99) == "F"
    assert letter(60) == "D"
