"""The walk from a failing test (server/engine/from_failure.py), driven directly as the CLI, the
editor and the benchmark drive it: a real project of two modules, real pytest runs, the edit
search (no model)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from selfdebug.server.backends.no_model import NoModelBackend
from selfdebug.server.engine import run_session
from selfdebug.server.engine.from_failure import FailureJob, WalkHooks, held, localize, repair
from selfdebug.server.runner import ProjectRunner, RunnerSettings

PRICES = """def unit_price(item):
    if item["qty"] >= 10:
        return item["price"] * 9 / 100
    return item["price"]
"""
ORDERS = """from pkg.prices import unit_price


def order_total(items):
    total = 0
    for item in items:
        total += unit_price(item) * item["qty"]
    return total
"""
# The bug is in prices.py (the bulk price: 9/100 for 9/10), which the failing test reaches only
# through orders.py; the passing tests run order_total and unit_price's other lines.
TESTS = """from pkg.orders import order_total


def test_small_order():
    assert order_total([{"price": 2, "qty": 3}]) == 6


def test_two_small_items():
    assert order_total([{"price": 1, "qty": 1}, {"price": 5, "qty": 2}]) == 11


def test_bulk_order():
    assert order_total([{"price": 1, "qty": 10}]) == 9
"""


def _project(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "prices.py").write_text(PRICES)
    (root / "pkg" / "orders.py").write_text(ORDERS)
    (root / "tests").mkdir()
    (root / "tests" / "test_orders.py").write_text(TESTS)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    return root


def test_the_walk_ranks_the_callee_first_and_fixes_it_in_its_own_module(tmp_path):
    root = _project(tmp_path / "shop")
    job = FailureJob(root, ("tests/test_orders.py::test_bulk_order",), {"mode": "search"})
    runner = ProjectRunner(root, RunnerSettings(test_timeout_s=10))
    backend = NoModelBackend()
    started, vetted = [], []
    try:
        walk = localize(job, held(runner))
        assert walk.stop == ""
        assert [s.target for s in walk.found.suspects] == [
            "pkg/prices.py::unit_price",
            "pkg/orders.py::order_total",
        ]
        hooks = WalkHooks(
            lambda _suspect, request: run_session(request, backend, runner=runner),
            on_start=lambda attempt: started.append(attempt.suspect.qualname),
            on_vet=lambda attempt: vetted.append(attempt.suspect.qualname),
        )
        attempts = repair(walk, hooks, held(runner))
    finally:
        runner.close()
    assert attempts == walk.attempts
    assert started == vetted == ["unit_price"]  # the first suspect's fix, checked, ends the walk
    shown = walk.shown
    assert shown is not None and shown.result is not None and shown.request is not None
    assert shown.result.success and not shown.refused
    assert shown.why.startswith("suspect 1 of 2: 1/1 failing tests run it")
    assert shown.request.target.file == root / "pkg" / "prices.py"
    assert shown.request.target.tests == ["tests/test_orders.py::test_bulk_order"]
    files = shown.fix_files()
    assert list(files) == [root / "pkg" / "prices.py"]
    (root / "pkg" / "prices.py").write_text(files[root / "pkg" / "prices.py"])
    check = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=root, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout
    assert (root / "pkg" / "orders.py").read_text() == ORDERS


def test_a_passing_test_stops_the_walk_before_any_session(tmp_path):
    root = _project(tmp_path / "shop")
    job = FailureJob(root, ("tests/test_orders.py::test_small_order",), {"mode": "search"})
    runner = ProjectRunner(root, RunnerSettings(test_timeout_s=10))
    try:
        walk = localize(job, held(runner))
        assert walk.stop == "passing" and walk.tried == []
        assert repair(walk, WalkHooks(lambda *_: None), held(runner)) == []
    finally:
        runner.close()


def test_the_walk_runs_no_test_twice_on_the_same_code(tmp_path, started_runs):
    """Localizing, the session's baseline, verifying the fix and checking it against its
    function's own tests each want test results; a run already made on the same code answers
    (the runner's memo), so a walk that fixes with the search starts three pytest runs: the
    failing test, its file on the original, its file on the fix."""
    root = _project(tmp_path / "shop")
    failing = "tests/test_orders.py::test_bulk_order"
    job = FailureJob(root, (failing,), {"mode": "search"})
    runner = ProjectRunner(root, RunnerSettings(test_timeout_s=10))
    try:
        walk = localize(job, held(runner))
        hooks = WalkHooks(lambda _s, request: run_session(request, NoModelBackend(), runner=runner))
        repair(walk, hooks, held(runner))
    finally:
        runner.close()
    shown = walk.shown
    assert shown is not None and shown.result is not None and shown.result.success
    assert not shown.refused
    assert started_runs == [[failing], ["tests/test_orders.py"], ["tests/test_orders.py"]]
