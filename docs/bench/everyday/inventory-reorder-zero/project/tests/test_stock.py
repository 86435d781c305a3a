from stock import needs_restock, restock_list


def test_default_level():
    assert needs_restock({"name": "tea", "stock": 3})


def test_zero_level_never_reorders():
    assert not needs_restock({"name": "old mug", "stock": 3, "reorder_at": 0})


def test_restock_list():
    items = [{"name": "jam", "stock": 1, "reorder_at": 2}, {"name": "salt", "stock": 9}]
    assert restock_list(items) == ["jam"]
