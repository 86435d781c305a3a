from wordstats import tally


def test_adds_to_the_given_counts_in_place():
    counts = {"a": 1}
    result = tally(["a", "b"], counts)
    assert counts == {"a": 2, "b": 1}
    assert result is counts


def test_three_fresh_calls():
    assert tally([]) == {}
    assert tally(["q"]) == {"q": 1}
    assert tally(["q"]) == {"q": 1}
