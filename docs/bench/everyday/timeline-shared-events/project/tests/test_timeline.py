from datetime import date

from timeline import Timeline, merged


def test_add_keeps_date_order():
    tl = Timeline("web")
    tl.add(date(2024, 5, 2), "beta")
    tl.add(date(2024, 4, 1), "alpha")
    assert tl.latest() == (date(2024, 5, 2), "beta")


def test_two_timelines_are_separate():
    web, app = Timeline("web"), Timeline("app")
    web.add(date(2024, 1, 1), "kickoff")
    assert app.events == []


def test_merged():
    a, b = Timeline("a"), Timeline("b")
    a.add(date(2024, 2, 1), "x")
    b.add(date(2024, 1, 1), "y")
    assert merged(a, b) == [(date(2024, 1, 1), "b", "y"), (date(2024, 2, 1), "a", "x")]
