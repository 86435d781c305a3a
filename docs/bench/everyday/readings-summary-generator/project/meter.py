"""Daily summaries of an electricity meter's readings (kWh)."""


def parse_readings(lines):
    """Readings from 'timestamp,kwh' lines, skipping the header and blanks."""
    for line in lines:
        line = line.strip()
        if line and not line.startswith("time"):
            yield float(line.split(",")[1])


def summarize(readings):
    """{'min', 'max', 'total', 'count'} of the readings (any iterable)."""
    values = readings
    if not values:
        return {"min": None, "max": None, "total": 0.0, "count": 0}
    return {
        "min": min(values),
        "max": max(values),
        "total": round(sum(values), 3),
        "count": len(values),
    }
