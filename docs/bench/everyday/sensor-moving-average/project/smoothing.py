"""Smoothing noisy temperature readings from a greenhouse sensor."""


def moving_average(values, window):
    """The mean of every run of `window` consecutive readings, in order."""
    if window < 1:
        raise ValueError("window must be at least 1")
    averages = []
    for start in range(len(values) - window):
        chunk = values[start:start + window]
        averages.append(sum(chunk) / window)
    return averages


def spikes(values, limit):
    """Indexes where a reading jumps more than `limit` from the one before."""
    return [i for i in range(1, len(values)) if abs(values[i] - values[i - 1]) > limit]


def smooth_report(values, window=3):
    """The smoothed series rounded for the dashboard."""
    return [round(v, 1) for v in moving_average(values, window)]
