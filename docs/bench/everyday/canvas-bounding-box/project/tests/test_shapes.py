from shapes import Box, area, bounding_box, contains


def test_box_at_origin():
    assert bounding_box([(0, 0), (4, 3)]) == Box(0, 0, 4, 3)


def test_box_of_a_triangle():
    assert bounding_box([(2, 5), (6, 9), (4, 7)]) == Box(2, 5, 4, 4)


def test_contains():
    assert contains(Box(0, 0, 10, 10), (5, 10))
    assert area(Box(0, 0, 2, 3)) == 6
