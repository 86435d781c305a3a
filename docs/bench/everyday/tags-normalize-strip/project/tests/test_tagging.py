from tagging import normalize_tags, tag_line


def test_tags_are_trimmed_and_lowered():
    assert normalize_tags("Vegan, quick ,Dessert") == ["vegan", "quick", "dessert"]


def test_tag_line():
    assert tag_line(["one pot", "fast"]) == "#one-pot #fast"
