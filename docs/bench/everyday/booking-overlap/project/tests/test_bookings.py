from bookings import conflicts, free_slots, overlaps


def test_overlapping_bookings():
    assert overlaps(540, 600, 570, 630)


def test_separate_bookings_do_not_overlap():
    assert not overlaps(540, 600, 660, 720)


def test_free_slots():
    assert free_slots({"standup": (540, 555)}) == [(480, 540), (555, 1080)]


def test_conflicts():
    assert conflicts({"a": (600, 660)}, 630, 700) == ["a"]
