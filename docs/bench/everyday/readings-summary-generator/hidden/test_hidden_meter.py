from meter import parse_readings, summarize


def test_every_field_from_a_generator():
    lines = ["time,kwh", "1,0.2", "2,0.9", "3,0.4"]
    assert summarize(parse_readings(lines)) == {"min": 0.2, "max": 0.9, "total": 1.5, "count": 3}


def test_empty_generator():
    assert summarize(x for x in []) == {"min": None, "max": None, "total": 0.0, "count": 0}


def test_tuple():
    assert summarize((3.0,))["count"] == 1
