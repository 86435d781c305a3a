"""Latency summaries shared by the benchmarks, so every one reads p50/p95 the same way."""

from __future__ import annotations

import statistics


def latency_ms(samples: list[float]) -> tuple[float, float, float]:
    """(median, p95, max) of samples in seconds, as milliseconds rounded to 0.001 ms.
    p95 is the nearest-rank value at 95% of the sorted samples."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        round(statistics.median(ordered) * 1000, 3),
        round(p95 * 1000, 3),
        round(ordered[-1] * 1000, 3),
    )
