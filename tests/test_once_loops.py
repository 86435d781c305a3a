"""Loops that run at most once (search/once_loops.py): what counts, and the search's use of
it with real pytest runs."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from helpers.requests import request_of

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import run_session
from selfdebug.server.engine.search.once_loops import loops_once, once_loops


def test_a_return_at_the_end_of_a_loop_body_runs_it_once() -> None:
    assert loops_once(
        "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n        return out\n"
    )
    assert loops_once("def f():\n    while True:\n        step()\n        break\n")
    assert loops_once(
        "def f(xs):\n    for x in xs:\n        check(x)\n        raise ValueError(x)\n"
    )


def test_loops_that_go_on_are_not_counted() -> None:
    first_item = "def f(xs):\n    for x in xs:\n        return x\n"  # the idiom: body is the exit
    guarded = "def f(xs):\n    for x in xs:\n        if x:\n            return x\n"
    continued = (
        "def f(xs):\n    for x in xs:\n        if not x:\n            continue\n        return x\n"
    )
    assert not any(loops_once(c) for c in (first_item, guarded, continued))
    assert not loops_once("def f(:\n")


def test_an_inner_loops_continue_does_not_keep_the_outer_one_going() -> None:
    code = (
        "def f(rows):\n"
        "    for row in rows:\n"
        "        for cell in row:\n"
        "            if not cell:\n"
        "                continue\n"
        "            use(cell)\n"
        "        return row\n"
    )
    (loop,) = once_loops(ast.parse(code))
    assert isinstance(loop, ast.For) and loop.lineno == 2


REPEATS = '''def repeats(items):
    """The items seen more than once, in the order they repeat."""
    seen, found = set(), []
    for item in items:
        if item in seen and item not in found:
            found.append(item)
        seen.add(item)
        return found
'''
REPEATS_TESTS = """from repeats import repeats


def test_a_repeat():
    assert repeats(["a", "a"]) == ["a"]
"""


def test_the_search_runs_the_loop_rather_than_pass_by_its_first_pass(tmp_path: Path) -> None:
    """The first survivors (a negated condition, `and` -> `or`) pass the test with a loop that
    returns after one item; the search goes on, and the edit that moves the `return` after the
    loop is the fix, the others left as flawed."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "repeats.py").write_text(REPEATS, encoding="utf-8")
    (root / "test_repeats.py").write_text(REPEATS_TESTS, encoding="utf-8")
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    transcript = tmp_path / "transcript.jsonl"
    result = run_session(
        request_of(
            file=root / "repeats.py",
            qualname="repeats",
            project_root=root,
            tests=["test_repeats.py::test_a_repeat"],
            wider_tests=[],
            mode="search",
            test_timeout_s=5.0,
            transcript_path=transcript,
        ),
        ScriptedBackend(["never asked"]),
    )
    assert result.success, (result.error, result.warnings)
    assert result.fixed_function.rstrip().endswith("\n    return found")
    assert not loops_once(result.fixed_function)
    events = [json.loads(line) for line in transcript.read_text().splitlines()]
    goes_on = [e for e in events if e["event"] == "search_goes_on"]
    assert goes_on and goes_on[0]["why"] == "every survivor keeps a loop that runs at most once"
    assert (root / "repeats.py").read_text() == REPEATS  # the user's file untouched


PROBLEMS = '''def problems(rows):
    """Every (row number, message) of the rows' problems."""
    found = []
    for number, row in enumerate(rows):
        for message in row.split(","):
            found.append((number, message))
            return found
    return found
'''
PROBLEMS_TESTS = """from problems import problems


def test_one_problem_per_row():
    assert problems(["a", "b"]) == [(0, "a"), (1, "b")]
"""


class ExitAnswers(ScriptedBackend):
    """Greedy answers `break`, sampled ones `pass`: the first makes the inner loop run once."""

    def __init__(self) -> None:
        super().__init__(["unused"], prompt_form="completion")

    def complete(self, request, cancel=None, on_text=None, on_progress=None):
        self._replies = ["break" if request.temperature == 0 else "pass"]
        return super().complete(request, cancel, on_text, on_progress)


def test_the_models_survivor_that_keeps_a_loop_running_once_does_not_end_its_step(
    tmp_path: Path,
) -> None:
    """`break` for the `return` in the inner loop passes the test (each row has one problem)
    but runs that loop once; the step goes on to its sampled answers, and the one that runs
    the loop is proposed."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "problems.py").write_text(PROBLEMS, encoding="utf-8")
    (root / "test_problems.py").write_text(PROBLEMS_TESTS, encoding="utf-8")
    request = request_of(
        file=root / "problems.py", qualname="problems", project_root=root,
        tests=["test_problems.py::test_one_problem_per_row"], wider_tests=[],
        mode="auto", auto_search=False, max_turns=0, generated_inputs=0, model_edit_samples=2,
    )  # fmt: skip
    result = run_session(request, ExitAnswers())
    assert result.success, result.error
    assert "break" not in result.fixed_function and not loops_once(result.fixed_function)
    assert result.fixed_function == PROBLEMS.replace(
        "            return found\n", "            pass\n"
    )
