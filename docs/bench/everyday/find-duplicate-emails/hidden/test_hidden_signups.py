from signups import duplicates


def test_several_repeats_in_order():
    emails = ["c@x", "a@x", "c@x", "b@x", "a@x", "c@x"]
    assert duplicates(emails) == ["c@x", "a@x"]


def test_no_repeats():
    assert duplicates(["a@x", "b@x"]) == []


def test_empty():
    assert duplicates([]) == []
