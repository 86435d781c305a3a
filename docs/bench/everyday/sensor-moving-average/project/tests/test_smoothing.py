from smoothing import moving_average, spikes


def test_moving_average_pairs():
    assert moving_average([1, 2, 3, 4], 2) == [1.5, 2.5, 3.5]


def test_spikes():
    assert spikes([20, 21, 30, 29], 5) == [2]
