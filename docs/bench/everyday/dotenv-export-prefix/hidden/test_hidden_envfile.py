from envfile import parse_line


def test_key_made_of_prefix_letters():
    assert parse_line("export report=weekly") == ("report", "weekly")


def test_key_starting_with_export():
    assert parse_line("export export_dir=/tmp") == ("export_dir", "/tmp")


def test_no_prefix_key_starting_with_e():
    assert parse_line("expected_total=5") == ("expected_total", "5")


def test_upper_case_key():
    assert parse_line("export PORT=8000") == ("PORT", "8000")
