from gradebook import letter, report, weighted_average


def test_weighted_average():
    assert weighted_average([80, 100], [1, 3]) == 95


def test_letter_boundaries():
    assert letter(90) == "A"
    assert letter(80) == "B"
    assert letter(70) == "C"


def test_report():
    assert report({"ana": ([95], [1]), "bo": ([50], [1])}) == {"ana": "A", "bo": "F"}
