from weather import frost_warning, to_celsius, to_fahrenheit


def test_boiling_back_and_forth():
    assert to_celsius(212) == 100


def test_body_temperature():
    assert round(to_fahrenheit(37), 1) == 98.6


def test_frost():
    assert frost_warning([3, -1, 4])
