from signups import duplicates, unique


def test_unique():
    assert unique(["A@x.org", "a@x.org ", "b@x.org"]) == ["a@x.org", "b@x.org"]


def test_duplicates():
    assert duplicates(["a@x.org", "b@x.org", "A@x.org"]) == ["a@x.org"]
