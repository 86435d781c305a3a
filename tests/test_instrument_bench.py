"""`selfdebug bench instrument` measures real work and reports it (numbers, not a timed test)."""

from __future__ import annotations

import argparse
import json

import pytest

from selfdebug.bench import instrument as bench


def test_measure_reports_per_function_figures() -> None:
    figures = bench.measure(limit=40, level="blocks")
    assert figures["functions"] == 40 and figures["level"] == "blocks"
    assert 0 < figures["median_ms"] <= figures["p95_ms"] <= figures["max_ms"]
    assert 0 < figures["cpu"]["median_ms"] <= figures["cpu"]["p95_ms"]
    assert 1 <= figures["cold"]["functions"] <= figures["files"]
    assert figures["goal_median_ms"] == 2.0
    assert figures["meets_goal"] == (figures["median_ms"] < 2.0)


def test_main_prints_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    assert bench.main(parser.parse_args(["--limit", "10", "--json"])) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["functions"] == 10 and figures["level"] == "lines"
    assert bench.main(parser.parse_args(["--limit", "10"])) == 0
    assert "goal: median < 2.0 ms" in capsys.readouterr().out
