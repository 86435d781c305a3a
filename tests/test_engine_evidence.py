"""The failing tests' evidence (engine/evidence.py), read from real pytest failures: one small
project's tests run once by the project's runner, each kind of failure a row of one table."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfdebug.server.engine.evidence import NO_EVIDENCE, Evidence, Expected, FailingTest
from selfdebug.server.runner import ProjectRunner, RunnerSettings

SHAPES = """\
def area(side):
    return side * side + (1 if side > 1 else 0)


def greet(name):
    return "hello, " + name


def evens(values):
    return [v for v in values[:2] if v % 2 == 0]


def letters():
    return ["a", "b"]


class Box:
    def volume(self, side):
        return area(side) * side
"""

TESTS = """\
import unittest

import pytest

from shapes import Box, area, evens, greet, letters


def test_number():
    assert area(2) == 4


def test_text():
    assert greet("Ann") == "Hello, Ann"


def test_list():
    assert evens([1, 2, 3, 4]) == [2, 4]


def test_in():
    assert "c" in letters()


def test_method_where():
    assert Box().volume(2) == 8


def test_expects_a_raise():
    with pytest.raises(ValueError):
        area(-1)


def test_raised_in_project_code():
    area("x")


def _check(value, wanted):
    assert value == wanted


def test_helper_asserts():
    _check(area(3), 9)


def test_passes():
    assert area(1) == 1


class TestGreeting(unittest.TestCase):
    def test_equal(self):
        self.assertEqual(greet("Bo"), "Hello, Bo")
"""

TEST_FILE = "test_shapes.py"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("evidence") / "shapes"
    root.mkdir()
    (root / "shapes.py").write_text(SHAPES, encoding="utf-8")
    (root / TEST_FILE).write_text(TESTS, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def evidence(project: Path) -> Evidence:
    with ProjectRunner(project, RunnerSettings(test_timeout_s=20)) as runner:
        run = runner.run([TEST_FILE])
    assert not run.error, run.error
    return Evidence.of(run)


def _test(evidence: Evidence, name: str) -> FailingTest:
    return next(t for t in evidence.failing if t.nodeid == f"{TEST_FILE}::{name}")


# Each row: the test, then the facts read from its real failure. `compared_values` is what the
# overfitting refusal counts as the test's values; `where` is pytest's (value, call) account.
FACTS = [
    ("test_number", {"raised": "AssertionError", "assert_op": "==", "left_value": 5,
                     "right_value": 4, "compared_values": (5, 4),
                     "where": (("5", "area(2)"),), "expects_raised": ()}),
    ("test_text", {"left_value": "hello, Ann", "right_value": "Hello, Ann",
                   "compared_values": ("hello, Ann", "Hello, Ann"), "where": ()}),
    ("test_list", {"left_value": [2], "right_value": [2, 4], "compared_values": ([2], [2, 4])}),
    ("test_in", {"assert_op": "in", "left_value": "c", "right_value": ["a", "b"],
                 "compared_values": ("c",), "where": (("['a', 'b']", "letters()"),)}),
    ("test_expects_a_raise", {"raised": "Failed", "expects_raised": ("ValueError",),
                              "assert_op": None, "compared_values": ()}),
    ("test_raised_in_project_code", {"raised": "TypeError", "assert_op": None,
                                     "compared_values": (), "where": (), "expects_raised": ()}),
    ("TestGreeting::test_equal", {"raised": "AssertionError", "assert_op": None,
                                  "unittest_sides": ("'hello, Bo'", "'Hello, Bo'"),
                                  "compared_values": ("hello, Bo", "Hello, Bo")}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "facts"), FACTS, ids=[row[0] for row in FACTS])
def test_a_real_failure_gives_its_facts(evidence: Evidence, name: str, facts: dict) -> None:
    test = _test(evidence, name)
    read = {
        key: tuple((w.value, w.call) for w in test.where) if key == "where" else getattr(test, key)
        for key in facts
    }
    assert read == facts


def test_the_message_is_read_by_lines(evidence: Evidence) -> None:
    first, *rest = _test(evidence, "TestGreeting::test_equal").message_lines
    assert first == "'hello, Bo' != 'Hello, Bo'" and rest  # unittest's diff follows
    (raised,) = _test(evidence, "test_raised_in_project_code").message_lines
    assert "multiply sequence" in raised


def test_a_where_line_is_matched_to_the_function_it_calls(evidence: Evidence) -> None:
    """`Box().volume(2)`: pytest writes `where 10 = volume(2)`, then where `volume` and `Box()`
    came from; only the first is a call of `volume`."""
    where = _test(evidence, "test_method_where").where
    assert [(w.value, w.call) for w in where if w.calls("volume")] == [("10", "volume(2)")]
    assert [w.call for w in where if w.calls("Box")] == ["Box()"]
    assert not any(w.calls("area") or w.calls("olume") for w in where)


def test_the_run_gives_what_the_search_expects(evidence: Evidence) -> None:
    assert [t.nodeid.rpartition("::")[2] for t in evidence.failing] == [
        "test_number", "test_text", "test_list", "test_in", "test_method_where",
        "test_expects_a_raise", "test_raised_in_project_code", "test_helper_asserts",
        "test_equal",
    ]  # fmt: skip
    assert evidence.tests == 10 and evidence.error == ""
    assert evidence.expected == Expected(
        raises=("ValueError",), failed_with=("AssertionError", "Failed", "TypeError")
    )
    assert Evidence.of(None) == NO_EVIDENCE and NO_EVIDENCE.expected == Expected()


def test_each_reader_finds_its_frame(evidence: Evidence, project: Path) -> None:
    """The frames the readers take are different facts, named apart: the outermost (the FIM
    comment's check, the ranking's failing line), the innermost asserting one outside the
    target (the prompt's), the test file's own (the hover's)."""
    shapes, tests = project / "shapes.py", project / TEST_FILE
    raised = _test(evidence, "test_raised_in_project_code")
    assert [(Path(f.path).name, f.function) for f in raised.frames] == [
        (TEST_FILE, "test_raised_in_project_code"),
        ("shapes.py", "area"),
    ]
    assert raised.first_frame is not None and raised.first_frame.code == 'area("x")'
    # no assertion: the test function's own frame, never the target's
    frame = raised.asserting_frame(shapes)
    assert frame is not None and frame.function == "test_raised_in_project_code"
    assert [f.function for f in raised.test_file_frames(project)] == ["test_raised_in_project_code"]
    assert [(f.path, f.function) for f in raised.frames_under(project)] == [
        (TEST_FILE, "test_raised_in_project_code"),
        ("shapes.py", "area"),
    ]

    helper = _test(evidence, "test_helper_asserts")
    assert helper.first_frame is not None and helper.first_frame.code == "_check(area(3), 9)"
    asserting = helper.asserting_frame(shapes)
    assert asserting is not None and asserting.code == "assert value == wanted"
    assert [f.function for f in helper.test_file_frames(project)] == [
        "test_helper_asserts", "_check"
    ]  # fmt: skip
    assert all(Path(f.path) == tests for f in helper.test_file_frames(project))


def test_a_timeout_is_read_two_ways() -> None:
    """The prompt reads the runner's outcome; the FIM comment also an exception named for a
    timeout: two facts until they are made one."""
    from selfdebug.server.runner.results import TestResult

    raised = FailingTest.of(TestResult("t.py::t", "failed", exc_type="TimeoutError"))
    assert (raised.timed_out, raised.ended_in_timeout) == (False, True)
    stopped = FailingTest.of(TestResult("t.py::t", "timeout"))
    assert (stopped.timed_out, stopped.ended_in_timeout) == (True, True)
