from settings import load_settings


def test_zero_retries_is_kept():
    assert load_settings({"target": "t", "retries": 0}).retries == 0


def test_string_zero_retries_is_kept():
    assert load_settings({"target": "t", "retries": "0"}).retries == 0


def test_default_again():
    assert load_settings({"target": "t", "verbose": "off"}).retries == 3
