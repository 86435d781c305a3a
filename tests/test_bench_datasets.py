"""Benchmark problems: which tests the model is shown, and the throwaway projects they run in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfdebug.bench.datasets import (
    HIDDEN_TEST_FILE,
    DatasetError,
    choose_visible_tests,
    collect_test_names,
    load_problems,
    select_problems,
    write_project,
)

SLICE = Path(__file__).parent / "fixtures" / "bench" / "slice.jsonl"
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "bench"


def test_visible_tests_add_the_first_failing_case_when_the_first_case_passes() -> None:
    record = {
        "visible_tests": "def test_case_0():\n    assert f(1) == 1\n",
        "visible_fails_on_buggy": False,
        "visible_tests_failing": "def test_case_3():\n    assert f(3) == 9\n",
    }
    text, choice = choose_visible_tests(record)
    assert collect_test_names(text) == ["test_case_0", "test_case_3"]
    assert choice == "visible_tests+visible_tests_failing"


def test_visible_tests_stay_as_given_when_they_already_fail() -> None:
    record = {
        "visible_tests": "def test_case_0():\n    assert f(1) == 2\n",
        "visible_fails_on_buggy": True,
        "visible_tests_failing": "def test_case_0():\n    assert f(1) == 2\n",
    }
    assert choose_visible_tests(record) == (record["visible_tests"], "visible_tests")


def test_slice_loads_and_selects() -> None:
    problems = load_problems(SLICE)
    assert [p.id for p in problems] == ["mini/clamp", "mini/largest", "mini/count_vowels"]
    assert problems[0].visible_test_names == ["test_inside", "test_above"]
    assert [p.id for p in select_problems(problems, ["mini/count_vowels", "mini/clamp"])] == [
        "mini/clamp",
        "mini/count_vowels",
    ]
    assert len(select_problems(problems, limit=2)) == 2
    with pytest.raises(DatasetError, match="mini/nope"):
        select_problems(problems, ["mini/nope"])


def test_a_malformed_record_names_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    good = SLICE.read_text(encoding="utf-8").splitlines()[0]
    broken = json.loads(good) | {"tests": "def test_x(:\n"}
    bad.write_text(good + "\n" + json.dumps(broken) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"bad\.jsonl:2"):
        load_problems(bad)


def test_session_project_holds_no_hidden_tests(tmp_path: Path) -> None:
    problem = load_problems(SLICE)[0]
    session = write_project(problem, tmp_path / "work", problem.buggy, hidden=False)
    assert sorted(p.name for p in session.root.iterdir()) == ["candidate.py", "test_visible.py"]
    assert session.visible_test_ids == [
        "test_visible.py::test_inside",
        "test_visible.py::test_above",
    ]
    scoring = write_project(problem, tmp_path / "score", problem.fixed, hidden=True)
    assert (scoring.root / HIDDEN_TEST_FILE).exists()
    assert len(scoring.hidden_test_ids) == 3


@pytest.mark.skipif(not SHARED.is_dir(), reason="benchmark data not present")
def test_every_shared_problem_has_visible_and_hidden_tests() -> None:
    for dataset in ("quixbugs.dev.jsonl", "humanevalfix.dev.jsonl"):
        problems = load_problems(SHARED / dataset)
        assert problems
        for problem in problems:
            assert problem.visible_test_names, problem.id
            assert problem.hidden_test_names, problem.id
