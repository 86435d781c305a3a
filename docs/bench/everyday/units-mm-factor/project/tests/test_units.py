import pytest

from units import convert, to_meters


def test_centimetres():
    assert convert(250, "cm", "m") == 2.5


def test_millimetres():
    assert convert(5, "mm", "m") == 0.005


def test_unknown_unit():
    with pytest.raises(ValueError):
        to_meters(1, "yd")
