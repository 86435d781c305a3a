from units import convert, total_length


def test_mm_to_cm():
    assert convert(25, "mm", "cm") == 2.5


def test_cm_to_mm():
    assert convert(1, "cm", "mm") == 10.0


def test_mixed_cut_list():
    assert total_length([(1, "m"), (50, "cm"), (250, "mm")], "mm") == 1750.0


def test_inches_unchanged():
    assert convert(10, "in", "cm") == 25.4
