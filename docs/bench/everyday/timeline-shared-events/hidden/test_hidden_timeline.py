from datetime import date

from timeline import Timeline


def test_initial_events_are_copied():
    start = [(date(2024, 1, 1), "plan")]
    tl = Timeline("ops", start)
    tl.add(date(2024, 2, 1), "ship")
    assert start == [(date(2024, 1, 1), "plan")]
    assert len(tl.events) == 2


def test_many_default_timelines():
    timelines = [Timeline(str(i)) for i in range(3)]
    timelines[0].add(date(2024, 1, 1), "only here")
    assert [len(t.events) for t in timelines] == [1, 0, 0]


def test_between():
    tl = Timeline("x", [(date(2024, 1, d), str(d)) for d in (1, 5, 9)])
    assert tl.between(date(2024, 1, 5), date(2024, 1, 9)) == [
        (date(2024, 1, 5), "5"), (date(2024, 1, 9), "9")]
