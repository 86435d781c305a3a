from envfile import parse_env, parse_line


def test_plain_line():
    assert parse_line("DEBUG=1") == ("DEBUG", "1")


def test_export_prefix():
    assert parse_line("export path=/usr/bin") == ("path", "/usr/bin")


def test_file():
    assert parse_env("# comment\nA='x y'\n\nB=2") == {"A": "x y", "B": "2"}
