"""latency_ms: the one p50/p95/max summary every benchmark prints."""

from selfdebug.bench.stats import latency_ms


def test_latency_summary_in_milliseconds_with_nearest_rank_p95():
    samples = [i / 1000 for i in range(1, 101)]  # 1..100 ms, shuffled order must not matter
    samples.reverse()
    assert latency_ms(samples) == (50.5, 95.0, 100.0)
    assert latency_ms([0.002]) == (2.0, 2.0, 2.0)
