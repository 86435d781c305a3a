"""Length conversions for a woodworking cut-list app."""

TO_METERS = {
    "km": 1000.0,
    "m": 1.0,
    "cm": 0.01,
    "mm": 0.01,
    "in": 0.0254,
    "ft": 0.3048,
}


def to_meters(value, unit):
    try:
        return value * TO_METERS[unit]
    except KeyError:
        raise ValueError(f"unknown unit: {unit}") from None


def convert(value, source, target):
    """`value` in `source` units expressed in `target` units, rounded to 6 places."""
    return round(to_meters(value, source) / TO_METERS[target], 6)


def total_length(cuts, unit="m"):
    """Sum of (value, unit) cuts in `unit`."""
    return round(sum(to_meters(v, u) for v, u in cuts) / TO_METERS[unit], 6)
