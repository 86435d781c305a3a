from meter import parse_readings, summarize


def test_summary_of_a_list():
    assert summarize([1.5, 0.5, 2.0]) == {"min": 0.5, "max": 2.0, "total": 4.0, "count": 3}


def test_summary_of_a_generator():
    lines = ["time,kwh", "08:00,1.25", "09:00,0.75", ""]
    assert summarize(parse_readings(lines))["total"] == 2.0
