from prefs import DEFAULTS, load_prefs, save_prefs


def test_missing_file_gives_defaults(tmp_path):
    assert load_prefs(tmp_path / "none.json") == DEFAULTS


def test_round_trip(tmp_path):
    path = tmp_path / "p.json"
    save_prefs(path, {**DEFAULTS, "theme": "dark"})
    assert load_prefs(path)["theme"] == "dark"


def test_malformed_file_gives_defaults(tmp_path):
    path = tmp_path / "p.json"
    path.write_text("{not json", encoding="utf-8")
    assert load_prefs(path) == DEFAULTS
