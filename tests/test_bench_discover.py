"""`selfdebug bench discover` on the textkit fixture: the figures it prints are counted right
(times are printed, never asserted)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from selfdebug.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "runner" / "textkit"


def test_bench_discover_counts_static_and_executed_tests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "textkit"
    shutil.copytree(FIXTURE, root)
    assert main(["bench", "discover", str(root), "textkit/split.py::split_iter", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["project"] == "textkit" and result["suite_tests"] >= 12
    (figures,) = result["targets"]
    assert figures["target"] == "textkit/split.py::split_iter"
    assert figures["static_tests"] == 3  # its doctest and the wrapper's two tests
    assert figures["confirmed"] == 3 and figures["confirmed_static"] == 3
    assert figures["only_by_running"] == 0 and figures["static_not_executing"] == 0
    assert figures["cached"] is True  # the second request
    assert figures["summary"].startswith("3 tests execute `split_iter` (found by running")
    assert str(tmp_path) not in json.dumps(result)  # nothing machine-specific in the output
