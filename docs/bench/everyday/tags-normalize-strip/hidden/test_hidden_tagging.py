from tagging import common_tags, normalize_tags


def test_blanks_dropped():
    assert normalize_tags("a, ,b,") == ["a", "b"]


def test_repeats_dropped_after_normalizing():
    assert normalize_tags("Soup, soup ,SOUP") == ["soup"]


def test_common_tags():
    assert common_tags(["Quick, Vegan", "vegan ,quick,soup"]) == ["quick", "vegan"]
