"""The edit search's one-process evaluator on shapes of real code (seen on the real-bug dev set):
a method that uses private names (`self.__total`, mangled by its class), and a wider test that
keeps state between runs in one process. Real pytest runs through `mode search`, no model."""

from __future__ import annotations

from pathlib import Path

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.types import TargetSpec

COUNTER = """class Counter:
    def __init__(self):
        self.__total = 0

    def add(self, n):
        if n < 0:
            raise ValueError("n must be >= 0")
        self.__total -= n
        return self.__total
"""
COUNTER_TESTS = """import pytest

from counter import Counter


def test_adds_up():
    counter = Counter()
    assert counter.add(2) == 2
    assert counter.add(3) == 5


def test_negative():
    with pytest.raises(ValueError):
        Counter().add(-1)
"""

REGISTRY = """REGISTRY = {}


def register(name, value):
    if name in REGISTRY:
        raise KeyError(f"{name} registered twice")
    REGISTRY[name] = value
    return value


def double(x):
    return x * 3
"""
REGISTRY_TESTS = """from registry import double, register


def test_double():
    assert double(4) == 8


def test_register_once():
    assert register("a", 1) == 1
"""


def _search(root: Path, module: str, qualname: str, chosen: str, wider: list[str]):
    return run_session(
        DebugRequest(
            TargetSpec(
                file=root / f"{module}.py",
                qualname=qualname,
                project_root=root,
                tests=[f"test_{module}.py::{chosen}"],
                wider_tests=[f"test_{module}.py::{w}" for w in wider],
            ),
            mode="search",
        ),
        ScriptedBackend(["never asked"]),
    )


def test_a_method_with_private_names_is_searched_as_its_class_compiles_it(tmp_path):
    (tmp_path / "counter.py").write_text(COUNTER, encoding="utf-8")
    (tmp_path / "test_counter.py").write_text(COUNTER_TESTS, encoding="utf-8")
    result = _search(tmp_path, "counter", "Counter.add", "test_adds_up", ["test_negative"])
    assert result.success, (result.error, result.warnings)
    assert result.found_by.startswith("edit search at line 8")
    assert "        self.__total += n\n" in result.fixed_file
    assert (tmp_path / "counter.py").read_text() == COUNTER


def test_a_wider_test_that_fails_on_a_rerun_does_not_reject_the_fix(tmp_path):
    """`test_register_once` passes in a fresh process and fails on any re-run in the search's
    process: it says nothing of an edit there, and the fix's fresh-process run still runs it."""
    (tmp_path / "registry.py").write_text(REGISTRY, encoding="utf-8")
    (tmp_path / "test_registry.py").write_text(REGISTRY_TESTS, encoding="utf-8")
    result = _search(tmp_path, "registry", "double", "test_double", ["test_register_once"])
    assert result.success, (result.error, result.warnings)
    assert "    return x * 2\n" in result.fixed_file
    assert str(result.wider_after) == "1/1"  # test_register_once, in a fresh process
