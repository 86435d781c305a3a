from contacts import display_name, initials


def test_display_name():
    assert display_name({"first": "Ada", "last": "lovelace"}) == "Ada L."


def test_no_last_name():
    assert display_name({"first": "Cher"}) == "Cher"


def test_initials():
    assert initials({"first": "grace", "last": "hopper"}) == "GH"
