import pytest

from settings import load_settings


def test_defaults():
    s = load_settings({"target": "/backups"})
    assert s.retries == 3
    assert s.verbose is False


def test_strings_are_converted():
    s = load_settings({"target": "/b", "retries": "5", "verbose": "yes"})
    assert (s.retries, s.verbose) == (5, True)


def test_target_required():
    with pytest.raises(KeyError):
        load_settings({})
