from smoothing import moving_average, smooth_report


def test_window_of_three():
    assert moving_average([3, 6, 9, 12, 15], 3) == [6.0, 9.0, 12.0]


def test_window_as_long_as_the_series():
    assert moving_average([2, 4, 6], 3) == [4.0]


def test_window_longer_than_the_series():
    assert moving_average([1, 2], 3) == []


def test_window_of_one():
    assert moving_average([5, 7], 1) == [5.0, 7.0]


def test_report():
    assert smooth_report([20.0, 21.0, 22.5, 23.0]) == [21.2, 22.2]
