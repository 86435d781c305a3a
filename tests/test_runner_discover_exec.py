"""Tests found by what they execute (issue 23): real pytest runs on the `textkit` fixture, whose
tests reach its functions the ways real suites do: a package alias, a re-export through
`__init__.py`, a star import, a public wrapper (`split` runs `split_iter`), unittest classes
with the instance built in `setUp`, a fixture that builds the instance, another class with a
method of the same name (`Ledger.update` beside `Counter.update`), and doctests
(`--doctest-modules` in the project's configuration)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfdebug.server.engine import build_request
from selfdebug.server.runner import DiscoveryError, ProjectRunner, find_tests
from selfdebug.server.runner.discover_exec import Discovery, discover_tests
from selfdebug.server.runner.discovery_cache import DiscoveryCache

FIXTURE = Path(__file__).parent / "fixtures" / "runner" / "textkit"


@pytest.fixture(scope="module")
def textkit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("user") / "textkit"
    shutil.copytree(FIXTURE, root)
    return root


@pytest.fixture(scope="module")
def runner(textkit: Path) -> Iterator[ProjectRunner]:
    with ProjectRunner(textkit) as project_runner:
        yield project_runner


def discover(runner: ProjectRunner, target: str, tmp_path: Path) -> Discovery:
    path, _, qualname = target.partition("::")
    root = runner.project_root
    cache = DiscoveryCache(tmp_path / "cache")
    return discover_tests(root, root / path, qualname, runner=runner, cache=cache)


def reasons(found: Discovery) -> dict[str, str]:
    return {t.nodeid: t.reason for t in found.tests}


def test_alias_star_and_reexport_calls(runner: ProjectRunner, tmp_path: Path) -> None:
    shout = discover(runner, "textkit/core.py::shout", tmp_path)
    assert shout.how == "executed"
    assert reasons(shout) == {
        "tests/test_alias.py::test_shout_through_an_alias": "calls tk.shout; runs it 1 time",
        "tests/test_star.py::test_shout_star": "calls shout (from textkit *); runs it 1 time",
    }
    assert re.fullmatch(
        r"2 tests execute `shout` \(found by running 2 test files, \d+\.\d s\)", shout.summary()
    ), shout.summary()
    whisper = discover(runner, "textkit/core.py::whisper", tmp_path)
    assert whisper.nodeids == ["tests/test_alias.py::test_whisper_through_the_package"]
    # the static step alone links them too (through the package's re-exports)
    root = runner.project_root
    static = find_tests(root, root / "textkit" / "core.py", "whisper", runner=runner)
    assert [c.nodeid for c in static] == whisper.nodeids


def test_tests_of_a_public_wrapper_run_the_function(runner: ProjectRunner, tmp_path: Path) -> None:
    found = discover(runner, "textkit/split.py::split_iter", tmp_path)
    assert set(found.nodeids) == {
        "tests/test_wrapper.py::test_split_two",
        "tests/test_wrapper.py::test_split_empty",
        "textkit/split.py::textkit.split.split_iter",  # its doctest: the project runs them
    }
    why = reasons(found)
    assert why["tests/test_wrapper.py::test_split_two"].startswith(
        "calls split (imported from textkit), which calls split_iter; runs it"
    )
    assert why["textkit/split.py::textkit.split.split_iter"].startswith("its doctest; runs it")
    assert "tests/test_wrapper.py::test_join_only" not in why  # same file, never runs it


def test_unittest_classes_and_methods_on_instances(runner: ProjectRunner, tmp_path: Path) -> None:
    found = discover(runner, "textkit/shapes.py::Counter.update", tmp_path)
    assert reasons(found) == {
        "tests/test_methods.py::test_counter_update_from_a_fixture": (
            "uses Counter (imported from textkit.shapes) and calls .update; runs it 1 time"
        ),
        "tests/test_unit.py::TestCounter::test_update_counts": (
            "uses textkit.Counter and calls .update; runs it 1 time"
        ),
    }
    assert found.summary().startswith("2 tests execute `Counter.update` (found by running")


def test_a_method_of_another_class_is_not_linked(runner: ProjectRunner) -> None:
    """`ledger.update(...)` where `ledger` is a Ledger is no evidence for Counter.update: the
    static step links no Ledger test (finding 1 linked six such tests, "receiver type
    unknown")."""
    root = runner.project_root
    static = find_tests(root, root / "textkit" / "shapes.py", "Counter.update", runner=runner)
    assert {c.nodeid for c in static} == {
        "tests/test_methods.py::test_counter_update_from_a_fixture",
        "tests/test_unit.py::TestCounter::test_update_counts",
    }
    ledger = find_tests(root, root / "textkit" / "shapes.py", "Ledger.update", runner=runner)
    assert {c.nodeid for c in ledger} == {
        "tests/test_methods.py::test_ledger_update",
        "tests/test_methods.py::test_ledger_from_a_helper",
        "tests/test_unit.py::TestLedger::test_update_adds",
    }


def test_a_file_that_fails_to_collect_does_not_hide_the_others(tmp_path: Path) -> None:
    root = tmp_path / "textkit"
    shutil.copytree(FIXTURE, root)
    (root / "tests" / "test_broken.py").write_text(
        "from textkit import shout, no_such_name\n\n\ndef test_b():\n    shout('x')\n"
    )
    found = discover_tests(
        root, root / "textkit" / "core.py", "shout", cache=DiscoveryCache(tmp_path / "c")
    )
    assert set(found.nodeids) == {
        "tests/test_alias.py::test_shout_through_an_alias",
        "tests/test_star.py::test_shout_star",
    }
    (warning,) = found.warnings
    assert f"{root / 'tests' / 'test_broken.py'}:1: ImportError" in warning
    assert "no_such_name" in warning


def test_the_second_request_is_answered_from_the_cache(tmp_path: Path) -> None:
    root = tmp_path / "textkit"
    shutil.copytree(FIXTURE, root)
    cache = DiscoveryCache(tmp_path / "cache")
    core = root / "textkit" / "core.py"
    first = discover_tests(root, core, "shout", cache=cache)
    assert not first.cached
    again = discover_tests(root, core, "shout", cache=cache)
    assert again.cached and again.nodeids == first.nodeids
    assert again.summary().endswith("; cached)"), again.summary()
    # the function's own body changing (the fix) keeps the answer; nothing is in the project
    core.write_text(core.read_text().replace('+ "!"', '+ "!!"'))
    assert discover_tests(root, core, "shout", cache=cache).cached
    assert not list(root.rglob("*.json"))
    # a test file changing is a miss, and the new test is found
    alias = root / "tests" / "test_alias.py"
    alias.write_text(alias.read_text() + "\n\ndef test_more():\n    assert tk.shout('a')\n")
    fresh = discover_tests(root, core, "shout", cache=cache)
    assert not fresh.cached
    assert "tests/test_alias.py::test_more" in fresh.nodeids


def test_when_nothing_executes_it_the_files_run_are_named(tmp_path: Path) -> None:
    root = tmp_path / "textkit"
    shutil.copytree(FIXTURE, root)
    core = root / "textkit" / "core.py"
    core.write_text(core.read_text() + "\n\ndef lonely():\n    return 1\n")
    with pytest.raises(DiscoveryError) as raised:
        discover_tests(root, core, "lonely", cache=DiscoveryCache(tmp_path / "cache"))
    message = str(raised.value)
    assert message.startswith("no test executes lonely: ran ")
    assert "tests/test_alias.py" in message and "--test NODEID" in message


def test_a_request_says_how_its_tests_were_found(textkit: Path) -> None:
    target = build_request(textkit / "textkit" / "split.py", "split_iter", cwd=textkit).target
    assert "tests/test_wrapper.py::test_split_two" in target.tests
    assert target.tests_found_by.startswith("3 tests execute `split_iter` (found by running")


# A view class the library's own code builds (as a container builds a proxy in __delitem__):
# its one test that names it passes; the failing test reaches it only through `Shelf.label`.
SHELF = """class _Label:
    def __init__(self, shelf, key):
        self.shelf, self.key = shelf, key

    def text(self):
        return f"{self.key}: {max(len(self.shelf.items[self.key]) - 1, 0)}"


class Shelf:
    def __init__(self):
        self.items = {}

    def put(self, key, value):
        self.items.setdefault(key, []).append(value)

    def label(self, key):
        return _Label(self, key)
"""
NAMES_IT = """from shelf import _Label, Shelf


def test_label_of_an_empty_key_name():
    shelf = Shelf()
    shelf.items["a"] = []
    assert _Label(shelf, "a").text() == "a: 0"
"""
REACHES_IT = """from shelf import Shelf


def test_label_counts_the_items():
    shelf = Shelf()
    shelf.put("books", 1)
    shelf.put("books", 2)
    assert shelf.label("books").text() == "books: 2"
"""


def test_a_failing_test_beyond_the_files_that_name_the_function_is_found(tmp_path: Path) -> None:
    """Issue 35 item 4: the files that name `_Label.text` hold no failing test of it, so
    discovery goes on through the rest of the suite and finds the one that fails."""
    root = tmp_path / "shelf"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    (root / "shelf.py").write_text(SHELF)
    (root / "tests" / "test_label.py").write_text(NAMES_IT)
    (root / "tests" / "test_shelf.py").write_text(REACHES_IT)
    cache = DiscoveryCache(tmp_path / "cache")
    found = discover_tests(root, root / "shelf.py", "_Label.text", cache=cache)
    assert found.failing == ["tests/test_shelf.py::test_label_counts_the_items"]
    assert "tests/test_label.py::test_label_of_an_empty_key_name" in found.nodeids
    assert found.summary().startswith(
        "2 tests execute `_Label.text`, 1 failing (found by running 2"
    )


DOUBLED = """def doubled(function):
    def wrapper(x):
        return function(x) * 3

    return wrapper


@doubled
def inc(x):
    return x + 1
"""


def test_a_decorator_runs_in_the_tests_through_its_wrapper(tmp_path: Path) -> None:
    """The decorator's own body ran at import; the tests run its wrapper, which is where its
    bug is (a session edits the decorator, which defines the wrapper)."""
    root = tmp_path / "deco"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    (root / "deco.py").write_text(DOUBLED)
    (root / "tests" / "test_deco.py").write_text(
        "from deco import inc\n\n\ndef test_inc():\n    assert inc(1) == 4\n"
    )
    found = discover_tests(root, root / "deco.py", "doubled", cache=DiscoveryCache(tmp_path / "c"))
    assert found.nodeids == ["tests/test_deco.py::test_inc"]
    assert found.failing == ["tests/test_deco.py::test_inc"]
