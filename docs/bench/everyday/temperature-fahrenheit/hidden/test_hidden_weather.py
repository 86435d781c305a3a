from weather import daily_range, to_fahrenheit


def test_freezing_point():
    assert to_fahrenheit(0) == 32


def test_minus_forty():
    assert to_fahrenheit(-40) == -40


def test_daily_range():
    assert daily_range([-5.0, 12.5, 3.0]) == (23.0, 54.5)
