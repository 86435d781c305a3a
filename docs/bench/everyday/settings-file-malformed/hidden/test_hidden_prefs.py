from prefs import DEFAULTS, load_prefs


def test_truncated_object(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"theme": "dark", }', encoding="utf-8")
    assert load_prefs(path) == DEFAULTS


def test_empty_file(tmp_path):
    path = tmp_path / "p.json"
    path.write_text("", encoding="utf-8")
    assert load_prefs(path) == DEFAULTS


def test_saved_values_win(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"font_size": 14}', encoding="utf-8")
    assert load_prefs(path) == {**DEFAULTS, "font_size": 14}
