"""Functions told apart by their file (issue 51): two modules holding the same `def median` at
the same line, and a CRLF copy of one. Their code objects compare equal (CPython's `==` and
`hash` ignore `co_filename`), so anything keyed by the code object handed one file's answer to
the other: `selfdebug test a.py::median` listed b's test, and the CRLF copy's function was "not
executed by any test". Real CLI runs, real pytest processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from selfdebug.server.runner import ProjectRunner
from selfdebug.server.runner.discover_exec import discover_tests
from selfdebug.server.runner.discovery_cache import DiscoveryCache
from selfdebug.server.runner.search_runner import SearchRunner

MEDIAN = "def median(xs):\n    xs = sorted(xs)\n    n = len(xs)\n    return xs[n // 2]\n"


def _test_file(module: str, name: str) -> str:
    return f"from {module} import median\n\n\ndef {name}():\n    assert median([3, 1, 2]) == 2\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """a.py and b.py: the same function at the same line; c.py: a's copy with CRLF line endings.
    Each has one test file with one test of its own name."""
    root = tmp_path / "stats"
    root.mkdir()
    (root / "a.py").write_text(MEDIAN)
    (root / "b.py").write_text(MEDIAN)
    (root / "c.py").write_bytes(MEDIAN.replace("\n", "\r\n").encode())
    for module, name in (("a", "test_alpha"), ("b", "test_beta"), ("c", "test_gamma")):
        (root / f"test_{module}.py").write_text(_test_file(module, name))
    return root


def selfdebug_test(project: Path, target: str, cache: Path) -> dict:
    env = {**os.environ, "SELFDEBUG_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-m", "selfdebug", "test", target, "--json"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def ran(answer: dict) -> list[str]:
    """The tests found (and run) for the target."""
    found = sorted(c["nodeid"] for c in answer["candidates"])
    assert sorted(t["nodeid"] for t in answer["result"]["tests"]) == found
    return found


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("a.py::median", ["test_a.py::test_alpha"]),
        ("b.py::median", ["test_b.py::test_beta"]),
        ("c.py::median", ["test_c.py::test_gamma"]),  # the CRLF copy
    ],
)
def test_each_file_gets_its_own_test(
    project: Path, tmp_path: Path, target: str, expected: list[str]
) -> None:
    answer = selfdebug_test(project, target, tmp_path / "cache")
    assert ran(answer) == expected, answer["found_by"]
    assert "execute" in answer["found_by"]  # found by running, not by static evidence only


def test_the_cache_keeps_each_files_answer(project: Path, tmp_path: Path) -> None:
    """One cache for all three: each function's second request (cached) is its own answer."""
    cache = DiscoveryCache(tmp_path / "cache")
    with ProjectRunner(project) as runner:
        for _round in ("run", "cached"):
            for module, test in (("a", "test_alpha"), ("b", "test_beta"), ("c", "test_gamma")):
                found = discover_tests(
                    project, project / f"{module}.py", "median", runner=runner, cache=cache
                )
                assert found.nodeids == [f"test_{module}.py::{test}"], (_round, module)
                assert found.cached == (_round == "cached")


def test_line_coverage_is_the_targets_file_only(project: Path) -> None:
    """The edit search's line coverage of a.median: b's equal function, run by b's test, is not
    a's (under sys.settrace an equal code object of b.py was traced as the target)."""
    tests = ["test_a.py::test_alpha", "test_b.py::test_beta", "test_c.py::test_gamma"]
    with ProjectRunner(project) as runner:
        searcher = SearchRunner(runner, project / "a.py", "median", MEDIAN, line=1)
        coverage = searcher.coverage(tests)
    assert coverage.error == ""
    assert coverage.tests["test_a.py::test_alpha"].lines == {2, 3, 4}
    assert coverage.tests["test_b.py::test_beta"].lines == frozenset()
    assert coverage.tests["test_c.py::test_gamma"].lines == frozenset()
