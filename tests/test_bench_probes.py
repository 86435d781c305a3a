"""`selfdebug bench probes`: which probe level shows the model the faulty line, measured on real
probed runs of a failing test (no model)."""

from __future__ import annotations

import json
import subprocess
import sys

from selfdebug.bench.datasets import Problem
from selfdebug.bench.probes import faulty_lines, measure_problem, shown_lines

# Line 5 (an assignment) is the bug: only a level that records assignments shows its value.
BUGGY = """def average(xs):
    total = 0
    for x in xs:
        total += x
    mean = total / (len(xs) + 1)
    return mean
"""
FIXED = BUGGY.replace("(len(xs) + 1)", "len(xs)")
PROBLEM = Problem(
    id="local/average",
    source="local",
    entry_point="average",
    buggy=BUGGY,
    fixed=FIXED,
    visible_tests="def test_two():\n    assert average([2, 4]) == 3\n",
    hidden_tests="def test_one():\n    assert average([5]) == 5\n",
    visible_choice="test",
)


def test_faulty_lines_are_the_lines_the_fix_changes_or_surrounds():
    assert faulty_lines(BUGGY, FIXED) == [5]
    inserted = BUGGY.replace("    return mean\n", "    mean = round(mean, 2)\n    return mean\n")
    assert faulty_lines(BUGGY, inserted) == [5, 6]  # around a missing step


def test_shown_lines_read_the_logs_function_relative_numbers():
    log = "line 1 `def average(xs):`: xs=[2, 4]\n...[3 lines left out]\nline 5 `mean = ...`: mean=2"
    assert shown_lines(log, 10) == {11, 15}


def test_only_a_level_that_records_assignments_shows_an_assignment_bug():
    outcome = measure_problem(PROBLEM, ["entry-return", "blocks", "lines"], test_timeout_s=10)
    assert outcome.failing_test == "test_visible.py::test_two"
    by_level = {r.level: r for r in outcome.levels}
    assert not any(r.error for r in outcome.levels)
    assert by_level["lines"].shows_fault
    assert not by_level["entry-return"].shows_fault
    assert by_level["lines"].records > by_level["entry-return"].records > 0


def test_the_cli_prints_a_table_and_writes_its_report(tmp_path):
    dataset = tmp_path / "one.jsonl"
    record = {
        "id": PROBLEM.id,
        "source": PROBLEM.source,
        "entry_point": PROBLEM.entry_point,
        "buggy": BUGGY,
        "fixed": FIXED,
        "visible_tests": PROBLEM.visible_tests,
        "tests": PROBLEM.hidden_tests,
    }
    dataset.write_text(json.dumps(record) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "selfdebug", "bench", "probes", "--dataset", str(dataset),
         "--levels", "lines", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "| lines | 1 | 1 |" in done.stdout
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["summary"]["levels"]["lines"]["shows_fault"] == 1


def test_probe_mode_shows_the_model_the_assignment_by_default(tmp_path):
    from helpers.sumproj import prompt_text

    from selfdebug.bench.datasets import write_project
    from selfdebug.server.backends.scripted import ScriptedBackend
    from selfdebug.server.engine import run_session

    project = write_project(PROBLEM, tmp_path / "work", BUGGY, hidden=False)
    backend = ScriptedBackend([f"Bug: one too many.\n```python\n{FIXED}```\n"])
    request = project.debug_request(PROBLEM, "probe", max_turns=1)
    result = run_session(request, backend)
    assert result.success
    log_prompt = prompt_text(backend, 0)
    assert "line 5 `mean = total / (len(xs) + 1)`: mean=2.0" in log_prompt, log_prompt


# The bug is inside a function defined in the target (line 4: `+ discount` should be `-`).
NESTED = """def total_price(items):
    def price(item):
        cost = item["unit"] * item["count"]
        return cost + (cost // 10 if item["count"] > 10 else 0)

    return sum(price(item) for item in items)
"""


def test_probes_reach_into_functions_defined_inside_the_target():
    problem = Problem(
        id="local/nested",
        source="local",
        entry_point="total_price",
        buggy=NESTED,
        fixed=NESTED.replace("return cost + (", "return cost - ("),
        visible_tests="def test_bulk():\n    assert total_price([{'unit': 1, 'count': 20}]) == 18",
        hidden_tests="def test_one():\n    assert total_price([{'unit': 3, 'count': 1}]) == 3\n",
        visible_choice="test",
    )
    outcome = measure_problem(problem, ["lines"], test_timeout_s=10)
    (lines,) = outcome.levels
    assert outcome.faulty_lines == [4] and not lines.error
    assert lines.shows_fault  # the helper's own lines are in the log, with the file's numbers
