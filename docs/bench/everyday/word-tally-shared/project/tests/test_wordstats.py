from wordstats import tag_cloud, tally


def test_tally():
    assert tally(["a", "b", "a"]) == {"a": 2, "b": 1}


def test_tally_twice_is_independent():
    tally(["x"])
    assert tally(["y"]) == {"y": 1}


def test_tag_cloud():
    assert tag_cloud(["Tea and cake", "tea, more tea", "cake"], 2) == ["tea", "cake"]
