"""Readings of a home weather station, shown in both scales."""


def to_fahrenheit(celsius):
    return celsius * (9 / 5 + 32)


def to_celsius(fahrenheit):
    return (fahrenheit - 32) * 5 / 9


def daily_range(readings_c):
    """(min, max) of the day's Celsius readings, in Fahrenheit, one decimal."""
    low, high = min(readings_c), max(readings_c)
    return round(to_fahrenheit(low), 1), round(to_fahrenheit(high), 1)


def frost_warning(readings_c):
    return any(c <= 0 for c in readings_c)


def label(celsius):
    """'21.5 °C / 70.7 °F' for the station's display."""
    return f"{celsius:.1f} °C / {to_fahrenheit(celsius):.1f} °F"
