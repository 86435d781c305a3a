from stock import reorder_level


def test_null_level_uses_default():
    assert reorder_level({"name": "rice", "stock": 1, "reorder_at": None}) == 5


def test_missing_level_uses_default():
    assert reorder_level({"name": "rice", "stock": 1}) == 5


def test_zero_kept():
    assert reorder_level({"name": "x", "stock": 0, "reorder_at": 0}) == 0


def test_own_level():
    assert reorder_level({"name": "x", "stock": 0, "reorder_at": 12}) == 12
