from contacts import display_name


def test_null_last_name():
    assert display_name({"first": "Prince", "last": None}) == "Prince"


def test_empty_last_name():
    assert display_name({"first": "Bjork", "last": ""}) == "Bjork"


def test_both():
    assert display_name({"first": "Alan", "last": "Turing"}) == "Alan T."
