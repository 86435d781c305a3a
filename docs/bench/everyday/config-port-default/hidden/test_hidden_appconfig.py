import pytest

from appconfig import bind_address, get_port


def test_null_port_uses_default():
    assert get_port({"port": None}) == 8080


def test_port_zero_is_kept():
    assert get_port({"port": 0}) == 0


def test_out_of_range():
    with pytest.raises(ValueError):
        get_port({"port": 70000})


def test_bind_default():
    assert bind_address({}) == "127.0.0.1:8080"
