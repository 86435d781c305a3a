"""Survivors of the edit search judged against each other on generated inputs (issue 26): the
REAL runner records the tests' own calls of the function, generates more of their shapes, and
runs the original and every version in one process. Equivalent survivors at two lines are one
answer; disagreeing ones are not proposed and the separating input is shown; a version that
raises where the original returned is flagged."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.count_project import COUNT
from helpers.requests import request_of
from helpers.sumproj import prompt_text

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import run_session
from selfdebug.server.engine.judge.crosscheck import CrossCheck
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.runner import ProjectRunner, RunnerSettings
from selfdebug.server.runner.search_runner import CandidateCode, SearchRunner


def _project(root: Path, module: str, code: str, tests: str) -> Path:
    root.mkdir()
    (root / f"{module}.py").write_text(code, encoding="utf-8")
    (root / f"test_{module}.py").write_text(tests, encoding="utf-8")
    return root


def _search(root: Path, module: str, chosen: list[str], wider: list[str], **changes):
    transcript = root.parent / f"{module}.jsonl"
    values = dict(
        file=root / f"{module}.py",
        qualname=module,
        project_root=root,
        tests=[f"test_{module}.py::{n}" for n in chosen],
        wider_tests=[f"test_{module}.py::{n}" for n in wider],
        mode="search",
        transcript_path=transcript,
    )
    values.update(changes)
    backend = changes.pop("backend", None) or ScriptedBackend(["never asked"])
    values.pop("backend", None)
    return run_session(request_of(**values), backend), transcript, backend


# Duplicates of the pivot are lost: `<` -> `<=` at line 5 and `>` -> `>=` at line 6 both fix
# it, and they are the same function.
QUICKSORT = """def quicksort(arr):
    if not arr:
        return []
    pivot = arr[0]
    lesser = quicksort([x for x in arr[1:] if x < pivot])
    greater = quicksort([x for x in arr[1:] if x > pivot])
    return lesser + [pivot] + greater
"""
QUICKSORT_TESTS = """from quicksort import quicksort


def test_duplicates():
    assert quicksort([3, 1, 3, 2]) == [1, 2, 3, 3]


def test_empty():
    assert quicksort([]) == []
"""


def test_equivalent_survivors_at_two_lines_are_one_answer(tmp_path):
    root = _project(tmp_path / "qs", "quicksort", QUICKSORT, QUICKSORT_TESTS)
    result, transcript, _ = _search(root, "quicksort", ["test_duplicates"], ["test_empty"])
    assert result.success, result.warnings
    assert result.found_by == "edit search at line 5"  # the smaller line of the two
    assert "x <= pivot" in result.fixed_file and "x > pivot" in result.fixed_file
    assert "2 edits at lines 5 and 6 behave the same on " in result.explanation
    judged = next(r for r in read_transcript(transcript) if r["event"] == "survivors_judged")
    assert judged["rule"] == "one answer" and len(judged["groups"]) == 1
    check = next(r for r in read_transcript(transcript) if r["event"] == "crosscheck")
    assert check["inputs"] >= 100 and check["recorded"] >= 1 and check["error"] == ""


# `>` should be `>=`; with one test case, `kept = 1` at line 2 makes it pass too, and the two
# differ on most other inputs (and `x > limit` -> `x >= limit` agrees with `<=` on none).
COUNT_TESTS = """from count_at_least import count_at_least


def test_two_at_least_two():
    assert count_at_least([1, 2, 3], 2) == 2
"""


def test_disagreeing_survivors_are_not_proposed_and_the_separating_input_is_shown(tmp_path):
    root = _project(tmp_path / "count", "count_at_least", COUNT, COUNT_TESTS)
    result, transcript, _ = _search(root, "count_at_least", ["test_two_at_least_two"], [])
    assert not result.success and result.fixed_file is None
    warning = next(w for w in result.warnings if w.startswith("edit search: "))
    assert "they differ on count_at_least(" in warning
    assert "`0` -> `1` returns " in warning and "`>` -> `>=` returns " in warning
    ambiguous = next(r for r in read_transcript(transcript) if r["event"] == "search_ambiguous")
    assert ambiguous["separation"].startswith("on count_at_least(")
    alternatives = result.alternatives  # none proposed: the edits and their separating input
    assert alternatives is not None and alternatives.call.startswith("count_at_least(")
    assert len(alternatives.edits) >= 2 and len(alternatives.results) == len(alternatives.edits)
    judged = next(r for r in read_transcript(transcript) if r["event"] == "survivors_judged")
    assert judged["rule"] == "ambiguous" and len(judged["groups"]) >= 2


def test_the_model_is_shown_the_separating_input(tmp_path):
    root = _project(tmp_path / "count", "count_at_least", COUNT, COUNT_TESTS)
    good = COUNT.replace("x > limit", "x >= limit")
    wrong = COUNT.replace("kept = 0", "kept = -1")
    # the model is first sampled at the survivors' lines (the vote among them; the search went
    # on, its first survivors differing, and found one at line 6 too): answers that repeat
    # line 2 or break the `if` at line 4 vote for none, and they stay undecided
    backend = ScriptedBackend(
        ["kept = 0"] * 6
        + [f"Bug: the start.\n```python\n{wrong}```\n", f"Bug: `>`.\n```python\n{good}```\n"]
    )
    result, _, _ = _search(
        root, "count_at_least", ["test_two_at_least_two"], [], mode="auto", max_turns=2,
        backend=backend,
    )  # fmt: skip
    turns = [i for i, request in enumerate(backend.requests) if request.messages]
    assert len(backend.requests) - len(turns) == 6  # three lines, greedy and sampled
    prompt = prompt_text(backend, turns[1])
    assert "A search over small edits found " in prompt
    assert "they differ on count_at_least(" in prompt and " returns " in prompt
    assert result.success and "x >= limit" in result.fixed_file


# A dict-like update that takes a mapping or an iterable of pairs.
MERGE = """def merge(target, items):
    if hasattr(items, "items"):
        items = items.items()
    for key, value in items:
        target[key] = value
    return target
"""
MERGE_TESTS = """from merge import merge


def test_mapping():
    assert merge({}, {"a": 1}) == {"a": 1}


def test_pairs():
    assert merge({"b": 2}, [("a", 1)]) == {"a": 1, "b": 2}
"""


def test_a_version_that_raises_where_the_original_returned_is_flagged(tmp_path):
    root = _project(tmp_path / "merge", "merge", MERGE, MERGE_TESTS)
    overfit = (
        "def merge(target, items):\n"
        "    for key, value in items.items():\n"
        "        target[key] = value\n"
        "    return target\n"
    )
    with ProjectRunner(root, RunnerSettings(test_timeout_s=10)) as runner:
        searcher = SearchRunner(runner, root / "merge.py", "merge", MERGE)
        run = searcher.crosscheck(
            [CandidateCode(1, overfit, 1), CandidateCode(2, MERGE, 1)],
            ["test_merge.py::test_mapping", "test_merge.py::test_pairs"],
        )
    assert run.error == "" and run.recorded == 2 and len(run.inputs) >= 20
    check = CrossCheck("merge", run)
    note = check.flaw_note("1")
    assert note.startswith("raises AttributeError on merge(")
    assert "where the original returned" in note
    assert check.flaw_note("2") == "" and check.agree("2", "original")
    assert not check.agree("1", "original")


# Two fixes of a crash in an error path that raise the same error with other messages: one
# keeps the inner error's text, one writes a constant (dateutil `parse`, a real dev case).
PORT = """def port(text):
    try:
        return int(text)
    except ValueError as error:
        raise LookupError(error.args[0] + 1)
"""
PORT_TESTS = """import pytest
from port import port


def test_number():
    assert port("80") == 80


def test_words():
    with pytest.raises(LookupError):
        port("eighty")
"""


def test_the_same_error_with_another_message_is_another_answer(tmp_path):
    root = _project(tmp_path / "port", "port", PORT, PORT_TESTS)
    inner = PORT.replace("error.args[0] + 1", "str(error)")
    constant = PORT.replace("error.args[0] + 1", "'not a port'")
    same = PORT.replace("error.args[0] + 1", "error.args[0]")  # the same text, another value
    with ProjectRunner(root, RunnerSettings(test_timeout_s=10)) as runner:
        searcher = SearchRunner(runner, root / "port.py", "port", PORT)
        run = searcher.crosscheck(
            [CandidateCode(1, inner, 1), CandidateCode(2, constant, 1), CandidateCode(3, same, 1)],
            ["test_port.py::test_number", "test_port.py::test_words"],
        )
    assert run.error == "" and run.recorded == 2
    check = CrossCheck("port", run)
    assert not check.agree("1", "2") and check.agree("1", "3")
    assert check.behaviour_groups(["1", "2", "3"]) == [["1", "3"], ["2"]]
    separation = check.separating(["1", "2"])
    assert separation is not None
    assert separation.results["2"] == "raises LookupError('not a port')"
    assert separation.results["1"].startswith('raises LookupError("invalid literal for int()')
    assert check.flaws("1") == []  # raising where the original raised is no flaw


def test_an_address_in_an_errors_message_is_dropped_as_in_a_value(tmp_path):
    """Each run makes a new object: its address would make every version's error another
    answer, and the user reads `<object object>`, as values show it."""
    root = _project(tmp_path / "port", "port", PORT, PORT_TESTS)
    fresh = PORT.replace("error.args[0] + 1", "'not a port: ' + repr(object())")
    with ProjectRunner(root, RunnerSettings(test_timeout_s=10)) as runner:
        searcher = SearchRunner(runner, root / "port.py", "port", PORT)
        run = searcher.crosscheck(
            [CandidateCode(1, fresh, 1), CandidateCode(2, fresh, 1)],
            ["test_port.py::test_number", "test_port.py::test_words"],
        )
    check = CrossCheck("port", run)
    raised = [o for o in check.outcomes("1") if o.startswith("raise:LookupError")]
    assert raised and all(o.endswith("not a port: <object object>") for o in raised)
    assert check.agree("1", "2")


# Calls whose first argument prints long (a method's object: dateutil's parser prints its whole
# parserinfo) are still told apart by the arguments after it.
TABLE = """class Table:
    def __init__(self):
        self.names = {f"name{i}": i for i in range(100)}

    def __repr__(self):
        return f"Table({self.names!r})"


def lookup(table, name):
    return table.names[name]
"""
TABLE_TESTS = """from lookup import Table, lookup


def test_first():
    assert lookup(Table(), "name1") == 1


def test_second():
    assert lookup(Table(), "name2") == 2
"""


def test_calls_with_a_long_first_argument_are_recorded_apart(tmp_path):
    root = _project(tmp_path / "lookup", "lookup", TABLE, TABLE_TESTS)
    with ProjectRunner(root, RunnerSettings(test_timeout_s=10)) as runner:
        searcher = SearchRunner(runner, root / "lookup.py", "lookup", TABLE)
        run = searcher.crosscheck(
            [CandidateCode(1, TABLE, 1)],
            ["test_lookup.py::test_first", "test_lookup.py::test_second"],
        )
    assert run.error == "" and run.recorded == 2
    assert [o.partition("\x1f")[0] for o in run.outcomes["original"][:2]] == ["ok:1", "ok:2"]


@pytest.mark.parametrize("wild", ["timeout"])
def test_a_version_that_did_not_finish_agrees_with_anything(wild):
    from selfdebug.server.runner.search_runner import CrossCheckRun

    outcomes = {
        "original": ["ok:1\x1f", "ok:2\x1f"],
        "1": [wild, "ok:2\x1f"],
        "2": ["ok:1\x1f", "raise:ValueError\x1fbad"],
    }
    run = CrossCheckRun(inputs=["1", "2"], outcomes=outcomes)
    check = CrossCheck("f", run)
    assert check.agree("1", "original") and not check.agree("2", "original")
    assert check.flaws("2") == [1] and check.changed("1") == set()
    assert check.only_repair(["1", "2"]) == "1" and check.only_repair(["1"]) is None


def test_async_functions_are_not_run_on_generated_inputs(tmp_path):
    code = "async def fetch(x):\n    return x + 1\n"
    tests = (
        "import asyncio\nfrom fetch import fetch\n\n\n"
        "def test_one():\n    assert asyncio.run(fetch(1)) == 2\n"
    )
    root = _project(tmp_path / "fetch", "fetch", code, tests)
    with ProjectRunner(root, RunnerSettings(test_timeout_s=10)) as runner:
        searcher = SearchRunner(runner, root / "fetch.py", "fetch", code)
        run = searcher.crosscheck([CandidateCode(1, code, 1)], ["test_fetch.py::test_one"])
    assert run.error == "async functions are not run on inputs" and not CrossCheck("f", run).usable


def test_of_several_repairs_the_one_that_keeps_the_originals_own_errors_is_chosen():
    """Each keeps every result the original returned; only "2" also keeps the error the
    original raised on purpose (its message), changing just the failing tests' TypeError."""
    from selfdebug.server.runner.search_runner import CrossCheckRun

    outcomes = {
        "original": ["ok:1\x1f", "raise:LookupError\x1fmissing: b", "raise:TypeError\x1fint"],
        "1": ["ok:1\x1f", "raise:LookupError\x1fmissing", "raise:LookupError\x1fmissing"],
        "2": ["ok:1\x1f", "raise:LookupError\x1fmissing: b", "raise:LookupError\x1fmissing: 3"],
        "3": ["ok:1\x1f", "raise:LookupError\x1fb", "raise:LookupError\x1f3"],
    }
    check = CrossCheck("f", CrossCheckRun(inputs=["a", "b", "3"], outcomes=outcomes))
    assert check.only_repair(["1", "2", "3"]) is None  # all keep the one normal result
    assert check.only_repair(["1", "2", "3"], failures=("TypeError",)) == "2"
    assert check.changed("1", ("TypeError",)) == {1} and check.changed("2", ("TypeError",)) == set()
    # when the original's errors are what the failing tests ended with, none is kept apart
    assert check.only_repair(["1", "2", "3"], failures=("TypeError", "LookupError")) is None
