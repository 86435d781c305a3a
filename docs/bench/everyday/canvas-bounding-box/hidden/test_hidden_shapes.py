from shapes import Box, area, bounding_box


def test_tall_box_away_from_the_axes():
    assert bounding_box([(10, 100), (12, 140)]) == Box(10, 100, 2, 40)


def test_negative_coordinates():
    assert bounding_box([(-3, -8), (1, -2)]) == Box(-3, -8, 4, 6)


def test_area_of_points():
    assert area(bounding_box([(1, 2), (4, 10)])) == 24
