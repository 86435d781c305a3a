from bookings import conflicts, overlaps


def test_back_to_back_do_not_overlap():
    assert not overlaps(540, 600, 600, 660)
    assert not overlaps(600, 660, 540, 600)


def test_contained():
    assert overlaps(540, 720, 600, 630)
    assert overlaps(600, 630, 540, 720)


def test_later_booking_checked_against_earlier():
    assert conflicts({"lunch": (720, 780), "review": (900, 960)}, 800, 850) == []
