"""Fault localization and the edit search (issue 13) on real projects with the REAL runner:
the Ochiai ranking from real line coverage, the classes of candidate edits, one test process
judging many candidates, a one-token fix found with no model call, cancel and the time budget,
the editor's Information diagnostics, and `auto` trying the search before the model."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers.count_project import COUNT, write_count_project
from helpers.requests import request_of
from helpers.sumproj import prompt_text
from lsprotocol.types import DiagnosticSeverity

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.judge.survivors import Survivor, behaviour_key, simplest_first
from selfdebug.server.engine.search.edit_search import localize
from selfdebug.server.engine.search.edits import generate_edits
from selfdebug.server.engine.search.localize import SuspiciousLine, rank_lines
from selfdebug.server.engine.target import locate
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.lsp.diagnostics import DiagnosticStore, FunctionSpan, suspicious_diagnostics
from selfdebug.server.runner import ProjectRunner, RunnerSettings
from selfdebug.server.runner.search_runner import CandidateCode, SearchRunner

# Line 7 (`if x < limit:`) is the bug: it should be `<=`. Only inputs equal to the limit take
# the wrong branch, so only the two tests at the limit run line 7 and fail.
CLAMP = """import math


def clamp_count(values, limit):
    kept = 0
    for x in values:
        if x < limit:
            kept += 1
        else:
            break
    return kept
"""
CLAMP_TESTS = """from clamp import clamp_count


def test_at_limit():
    assert clamp_count([1, 3], 3) == 2


def test_only_limit():
    assert clamp_count([4], 4) == 1


def test_below():
    assert clamp_count([1, 2], 5) == 2


def test_empty():
    assert clamp_count([], 5) == 0


def test_all_below():
    assert clamp_count([1, 2, 3], 10) == 3
"""
FAILING = ["test_clamp.py::test_at_limit", "test_clamp.py::test_only_limit"]
PASSING = [
    "test_clamp.py::test_below",
    "test_clamp.py::test_empty",
    "test_clamp.py::test_all_below",
]
BUG_LINE = 7  # 1-based file line of `if x < limit:`


@pytest.fixture()
def project(tmp_path) -> Path:
    root = tmp_path / "clampproj"
    root.mkdir()
    (root / "clamp.py").write_text(CLAMP, encoding="utf-8")
    (root / "test_clamp.py").write_text(CLAMP_TESTS, encoding="utf-8")
    return root


@pytest.fixture()
def runner(project):
    with ProjectRunner(project, RunnerSettings(test_timeout_s=10)) as shared:
        yield shared


def request(project: Path, **changes) -> DebugRequest:
    values = dict(
        file=project / "clamp.py",
        qualname="clamp_count",
        project_root=project,
        tests=FAILING,
        wider_tests=PASSING,
        mode="search",
    )
    values.update(changes)
    return request_of(**values)


# -- localization --
def test_ochiai_ranks_lines_that_only_failing_tests_run_first():
    outcomes = {"f1": "failed", "f2": "failed", "p1": "passed", "p2": "passed"}
    lines = {"f1": [2, 3, 5], "f2": [2, 3, 5], "p1": [2, 3, 4], "p2": [2, 4]}
    ranked = rank_lines(outcomes, lines)
    assert [s.line for s in ranked.lines] == [5, 3, 2]  # 4 is run by no failing test
    assert ranked.lines[0].describe() == "suspicious: run by 2/2 failing and 0/2 passing tests"
    assert ranked.lines[0].score == pytest.approx(1.0)
    assert ranked.lines[1].score == pytest.approx(2 / (2 * 3) ** 0.5)
    assert ranked.note == ""
    only_failing = rank_lines({"f1": "failed"}, {"f1": [2, 3]})
    assert "no passing test" in only_failing.note


def test_real_coverage_localizes_the_faulty_branch(project, runner):
    source = (project / "clamp.py").read_text()
    target = locate(source, "clamp_count")
    searcher = SearchRunner(runner, project / "clamp.py", "clamp_count", source)
    localization, coverage = localize(searcher, target, FAILING + PASSING)
    assert coverage.error == ""
    assert {n: t.outcome for n, t in coverage.tests.items()} == {
        **{n: "failed" for n in FAILING},
        **{n: "passed" for n in PASSING},
    }
    assert coverage.tests["test_clamp.py::test_empty"].lines == frozenset({5, 6, 11})
    top = localization.lines[0]
    assert (top.line, top.failing_hits, top.passing_hits) == (10, 2, 0)  # the `break`
    assert localization.lines[1].line == BUG_LINE  # run by every failing and 2/3 passing
    measured = searcher.coverage(FAILING + PASSING, measure=True)  # what bench search reports
    assert measured.tests.keys() == coverage.tests.keys()
    assert measured.plain_s > 0 and 0 < measured.overhead < 50
    assert localization.prompt_line(2, source) == (
        "lines most likely at fault: 10, 7 (line 10: `break`; line 7: `if x < limit:`)"
    )


def test_coverage_runs_do_not_look_like_a_debugger_to_the_tests(tmp_path):
    """The coverage tracer is hidden from `sys.gettrace()` (debugger detection, as python-dotenv
    does): the failing test fails under it as it fails without it."""
    root = tmp_path / "modeproj"
    root.mkdir()
    source = "import sys\n\n\ndef mode():\n    return 'debug' if sys.gettrace() else 'plain'\n"
    (root / "modes.py").write_text(source, encoding="utf-8")
    (root / "test_modes.py").write_text(
        "from modes import mode\n\n\ndef test_mode():\n    assert mode() == 'debug'\n"
        "\n\ndef test_other():\n    assert mode() == 'plain'\n",
        encoding="utf-8",
    )
    with ProjectRunner(root, RunnerSettings(test_timeout_s=10)) as shared:
        searcher = SearchRunner(shared, root / "modes.py", "mode", source)
        tests = ["test_modes.py::test_mode", "test_modes.py::test_other"]
        _localization, coverage = localize(searcher, locate(source, "mode"), tests)
    assert {n: t.outcome for n, t in coverage.tests.items()} == {
        "test_modes.py::test_mode": "failed",
        "test_modes.py::test_other": "passed",
    }
    assert coverage.tests["test_modes.py::test_mode"].lines == frozenset({5})


# -- candidate edits --
def test_candidate_edits_cover_each_class_in_rank_then_size_order():
    code = (
        "def f(items, n):\n"
        "    total = 0\n"
        "    for i in range(n):\n"
        "        if items[i] < n and i:\n"
        "            total += pow(items[i], 2)\n"
        "    return total\n"
    )
    edits = generate_edits(code, 10, {13: 0, 14: 1, 12: 2, 15: 3}, limit=500)
    described = {(e.line, e.before, e.after) for e in edits}
    assert (13, "<", "<=") in described  # comparison swap
    assert (13, "and", "or") in described  # boolean swap
    assert (13, "items[i] < n and i", "not (items[i] < n and i)") in described  # negated
    assert (13, "items[i] < n and i", "items[i] < n") in described  # dropped condition
    assert (13, "i", "i + 1") in described  # index off by one
    assert (14, "+=", "-=") in described  # augmented operator
    assert (14, "items[i], 2", "2, items[i]") in described  # swapped call arguments
    assert (14, "2", "3") in described and (14, "2", "1") in described  # +-1 on a literal
    assert (12, "n", "n + 1") in described  # range bound
    assert any(
        e.edit_class == "other-name" and e.line == 13 for e in edits
    )  # another in-scope name
    assert any(e.edit_class == "deleted-statement" and e.line == 14 for e in edits)
    assert (15, "total", "n") in described  # return of another in-scope value
    singles = [e for e in edits if not e.parts]
    ranks = [(e.rank, e.size) for e in singles]
    assert ranks == sorted(ranks)  # line rank first, then edit size
    combined = edits[len(singles) :]  # the same edit at every place, then pairs: last
    assert combined == [e for e in edits if e.parts]
    assert [e.edit_class for e in combined] == sorted(
        (e.edit_class for e in combined), key=lambda name: name == "pair"
    )
    assert edits[0].line == 13
    assert len(generate_edits(code, 10, {13: 0, 14: 1}, limit=7)) == 7  # bounded
    for edit in edits:  # each a distinct, parsing function
        compile(edit.code, "f", "exec")
    assert len({e.code for e in edits}) == len(edits)


# -- judging many candidates in one process --
def test_one_process_judges_many_candidates_and_finds_the_one_token_fix(project, runner):
    source = (project / "clamp.py").read_text()
    target = locate(source, "clamp_count")
    edits = generate_edits(target.code, target.start_line + 1, {BUG_LINE: 0, 8: 1}, limit=60)
    fix = next(i for i, e in enumerate(edits) if (e.before, e.after) == ("<", "<="))
    hang = target.code.replace("kept += 1", "while True:\n                pass")
    codes = [CandidateCode(i, e.code, target.start_line + 1) for i, e in enumerate(edits)]
    codes.append(CandidateCode(999, hang, target.start_line + 1))
    codes.append(CandidateCode(998, "def clamp_count(:\n", target.start_line + 1))
    searcher = SearchRunner(runner, project / "clamp.py", "clamp_count", source)
    started = time.monotonic()
    judged = searcher.judge(codes, FAILING, PASSING, per_candidate={"max_timeout_s": 1.0})
    assert judged.error == ""
    assert len(judged.verdicts) == len(codes)
    good = judged.verdicts[fix]
    assert set(good.outcomes.values()) == {"passed"} and len(good.outcomes) == 5
    assert judged.verdicts[999].timed_out  # the per-candidate alarm, not a hang
    assert "parse" in judged.verdicts[998].problem
    assert time.monotonic() - started < 30
    assert (project / "clamp.py").read_text() == CLAMP  # the user's file is never touched


def test_search_mode_fixes_with_no_model_call_and_names_the_finder(project, runner, tmp_path):
    transcript = tmp_path / "t.jsonl"
    events = []
    backend = ScriptedBackend(["never asked"])
    result = run_session(
        request(project, transcript_path=transcript),
        backend,
        runner=runner,
        progress=events.append,
    )
    assert result.success, result.error
    assert backend.requests == [] and result.model_calls == 0
    assert result.found_by == f"edit search at line {BUG_LINE}"
    assert "if x <= limit:" in result.fixed_file
    assert "-        if x < limit:\n+        if x <= limit:" in result.diff
    assert f"found by edit search at line {BUG_LINE}" in result.summary()
    assert str(result.wider_after) == "3/3" and str(result.chosen_after) == "2/2"
    assert result.suspicious[0].describe() == (
        "suspicious: run by 2/2 failing and 0/3 passing tests"
    )
    assert any(e.phase.startswith("tried ") and "/" in e.phase for e in events)
    kinds = [r["event"] for r in read_transcript(transcript)]
    assert "localization" in kinds and "search" in kinds
    assert (project / "clamp.py").read_text() == CLAMP


# -- time budget and cancel --
SLOW = CLAMP.replace("import math\n", "import time\n").replace(
    "    kept = 0\n", "    kept = 0\n    time.sleep(0.3)\n"
)


def test_search_honours_the_time_budget(project, runner):
    (project / "clamp.py").write_text(SLOW)
    started = time.monotonic()
    result = run_session(request(project, time_budget_s=4.0), ScriptedBackend(["x"]), runner=runner)
    elapsed = time.monotonic() - started
    assert result.stop_reason == "time_budget"
    assert elapsed < 4.0 + 2.5


def test_search_cancels_within_a_second(project, runner):
    (project / "clamp.py").write_text(SLOW)
    cancel = CancelToken()
    searching = threading.Event()

    def on_progress(event) -> None:
        if event.phase.startswith("tried "):
            searching.set()

    outcome = {}

    def work() -> None:
        outcome["result"] = run_session(
            request(project), ScriptedBackend(["x"]), runner=runner, progress=on_progress,
            cancel=cancel,
        )  # fmt: skip

    thread = threading.Thread(target=work)
    thread.start()
    assert searching.wait(60)
    time.sleep(0.5)  # inside a batch of candidates
    cancelled_at = time.monotonic()
    cancel.cancel("test")
    thread.join(10)
    assert time.monotonic() - cancelled_at < 1.0
    assert outcome["result"].stop_reason == "cancelled"


# -- the editor --
def test_suspicious_lines_are_information_diagnostics_that_clear_with_the_function(tmp_path):
    path = tmp_path / "clamp.py"
    span = FunctionSpan(path, "clamp_count", 3, 11)
    lines = [SuspiciousLine(BUG_LINE, 1.0, 2, 2, 0, 5), SuspiciousLine(40, 0.9, 2, 2, 1, 5)]
    by_uri = suspicious_diagnostics(lines, span)
    [(uri, diagnostics)] = by_uri.items()
    assert len(diagnostics) == 1  # line 40 is outside the function
    shown = diagnostics[0]
    assert shown.severity == DiagnosticSeverity.Information
    assert shown.message == "suspicious: run by 2/2 failing and 0/5 passing tests"
    assert shown.range.start.line == BUG_LINE - 1
    store = DiagnosticStore()
    owner = (uri, "clamp_count")
    store.record(owner, "hash-1", {uri: []})  # the failures of the function as it was run
    assert store.add(owner, "hash-2", by_uri) == set()  # edited since: not shown
    assert store.add(owner, "hash-1", by_uri) == {uri}
    assert store.for_uri(uri) == [shown]
    store.clear(owner)
    assert store.for_uri(uri) == []


# -- auto --
def test_auto_runs_the_search_before_the_first_model_call(project, runner, tmp_path):
    transcript = tmp_path / "t.jsonl"
    backend = ScriptedBackend(["never asked"])
    result = run_session(
        request(project, mode="auto", max_turns=3, transcript_path=transcript),
        backend,
        runner=runner,
    )
    # the search fixed it: no model turn; its one-line fixes differ on generated inputs, so the
    # model was sampled at that line once (greedy, then sampled) to vote among them
    assert result.success and [bool(r.infill) for r in backend.requests] == [True, True]
    assert result.found_by == f"edit search at line {BUG_LINE}" and result.mode == "search"
    assert result.fixed_at_turn == 0 and result.model_calls == 2
    events = [r["event"] for r in read_transcript(transcript)]
    assert "model_call" not in events and "model_preference" in events


def test_auto_without_its_search_keeps_the_models_fix_and_never_searches(project, runner, tmp_path):
    transcript = tmp_path / "t.jsonl"
    good = CLAMP.split("\n\n\n", 1)[1].replace("x < limit", "x <= limit")
    backend = ScriptedBackend([f"Bug: the limit itself is dropped.\n```python\n{good}```\n"])
    result = run_session(
        request(project, mode="auto", transcript_path=transcript, auto_search=False),
        backend,
        runner=runner,
    )
    assert result.success and result.found_by == "" and result.mode == "ut"
    assert "search" not in [r["event"] for r in read_transcript(transcript)]


def test_auto_asks_the_model_with_the_suspicious_lines_when_no_edit_survives(project, runner):
    # A missing statement: no small edit puts `kept += 1` back.
    good = CLAMP.split("\n\n\n", 1)[1].replace("x < limit", "x <= limit")
    missing = good.replace("kept += 1", "pass")
    (project / "clamp.py").write_text("import math\n\n\n" + missing)
    backend = ScriptedBackend([f"Bug: the comparison.\n```python\n{good}```\n"])
    result = run_session(
        request(project, mode="auto", max_turns=1, model_edits_s=0), backend, runner=runner
    )  # the whole-function turn (the local edits: tests/test_model_edits.py)
    assert len(backend.requests) == 1
    prompt = prompt_text(backend, 0)
    assert "lines most likely at fault: " in prompt
    assert result.success and result.found_by == ""


# -- the CLI --
def test_cli_search_mode_prints_the_suspicious_lines_and_the_finder(project):
    env = {k: v for k, v in os.environ.items() if k != "SELFDEBUG_SCRIPTED_REPLIES"}
    args = ["fix", "clamp.py::clamp_count", "--mode", "search"]
    for nodeid in FAILING:
        args += ["--test", nodeid]
    for nodeid in PASSING:
        args += ["--wider-test", nodeid]
    done = subprocess.run(
        [sys.executable, "-m", "selfdebug", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Suspicious lines:" in done.stdout
    assert "line 10: suspicious: run by 2/2 failing and 0/3 passing tests" in done.stdout
    assert f"passes 2/2 chosen, 3/3 wider; found by edit search at line {BUG_LINE}" in done.stdout
    assert "0 model call(s)" in done.stdout and "+        if x <= limit:" in done.stdout
    assert (project / "clamp.py").read_text() == CLAMP


def test_edits_that_make_degenerate_code_are_not_tried():
    code = (
        "def f(lo, hi):\n"
        "    while True:\n"
        "        mid = (lo + hi) // 2\n"
        "        if mid < hi:\n"
        "            return g(lo, mid)\n"
        "        lo = mid\n"
    )
    edits = generate_edits(code, 1, {2: 0, 3: 0, 4: 0, 5: 0, 6: 0}, limit=1000)
    after = {
        e.code.splitlines()[e.line - 1].strip()
        for e in edits
        if e.edit_class != "deleted-statement"
    }
    assert "while not True:" not in after  # a constant condition
    assert "if mid < mid:" not in after and "if hi < hi:" not in after  # compared with itself
    assert "return g(mid, mid)" not in after and "return g(lo, lo)" not in after
    assert "if mid <= hi:" in after and "return g(lo, hi)" in after  # the rest still come


def test_no_edit_asks_the_type_of_arithmetic():
    """`isinstance(x + 1, int)` "fixes" a test that wants a TypeError by raising one."""
    code = "def f(x, n):\n    if isinstance(x, int):\n        return g(x, n)\n    return None\n"
    edits = generate_edits(code, 1, {2: 0, 3: 0}, limit=300)
    after = {e.code.splitlines()[e.line - 1].strip() for e in edits}
    assert not any(line.startswith("if isinstance(x + 1") for line in after)
    assert "return g(x + 1, n)" in after  # other calls' arguments still move by one


# -- overfitting: edits the tests cannot choose between --
# `>` should be `>=`; with one test case, `kept = 1` and `kept += 2` make it pass too.
@pytest.fixture()
def count_project(tmp_path) -> Path:
    return write_count_project(tmp_path / "countproj")


def count_request(root: Path, **changes) -> DebugRequest:
    return request(
        root,
        file=root / "count.py",
        qualname="count_at_least",
        tests=["test_count.py::test_two_at_least_two"],
        wider_tests=[],
        **changes,
    )


def test_search_proposes_nothing_when_edits_at_several_lines_pass(count_project, tmp_path):
    transcript = tmp_path / "t.jsonl"
    result = run_session(
        count_request(count_project, transcript_path=transcript), ScriptedBackend(["never asked"])
    )
    assert not result.success and result.fixed_file is None
    warning = next(w for w in result.warnings if w.startswith("edit search: "))
    assert "`>` -> `>=`" in warning and "`0` -> `1`" in warning
    assert "none is proposed" in warning
    ambiguous = next(r for r in read_transcript(transcript) if r["event"] == "search_ambiguous")
    assert {2, 4} <= set(ambiguous["lines"])
    assert (count_project / "count.py").read_text() == COUNT


def test_auto_hands_the_undecided_edits_to_the_model(count_project):
    good = COUNT.replace("x > limit", "x >= limit")
    wrong = COUNT.replace("kept = 0", "kept = -1")
    # first the vote at three lines (greedy and sampled at each; the search went on, its first
    # survivors differing, and found more at a third): answers that repeat line 2
    # or break line 4's `if` vote for neither, and the edits stay undecided
    backend = ScriptedBackend(
        ["kept = 0"] * 6
        + [f"Bug: the start.\n```python\n{wrong}```\n", f"Bug: `>`.\n```python\n{good}```\n"]
    )
    result = run_session(count_request(count_project, mode="auto", max_turns=2), backend)
    turns = [i for i, request in enumerate(backend.requests) if request.messages]
    assert len(turns) == 2 and len(backend.requests) == 8
    assert "A search over small edits" not in prompt_text(backend, turns[0])  # from turn 2
    prompt = prompt_text(backend, turns[1])
    assert "A search over small edits found " in prompt and "`>` -> `>=`" in prompt
    assert result.success and result.found_by == "" and "x >= limit" in result.fixed_file
    assert not any(w.startswith("edit search: ") for w in result.warnings)  # a fix was found


def test_a_negated_comparison_is_tried_once_as_the_operator_swap():
    code = (
        "def f(a, b):\n    if a is b:\n        return 1\n    while a < b and b:\n        a += 1\n"
    )
    edits = generate_edits(code, 1, {2: 0, 4: 1}, limit=1000)
    described = {(e.line, e.before, e.after) for e in edits}
    assert (2, "is", "is not") in described
    assert not any(e.after.startswith("not (a is b") for e in edits)
    assert (4, "a < b and b", "not (a < b and b)") in described  # a compound one is negated


def test_edits_that_make_one_program_are_one_answer():
    one = "def f(s):\n    return 1 + f(s[1:])\n"
    same = [one.replace("1 + f", "1 * f"), one.replace("1 + f", "0 + f"), one.replace("1 + ", "")]
    assert len({behaviour_key(code) for code in same}) == 1
    assert behaviour_key(one) != behaviour_key(same[0])
    minus_zero, plain = "def f(x):\n    return x - 0\n", "def f(x):\n    return x\n"
    assert behaviour_key(minus_zero) == behaviour_key(plain)


def test_of_edits_that_make_one_program_the_plain_spelling_is_proposed():
    code = "def f(s):\n    return 1 + f(s[1:])\n"
    edits = {e.after: e for e in generate_edits(code, 1, {2: 0}, limit=500)}
    times, dropped = edits["*"], edits["f(s[1:])"]
    other = next(e for e in edits.values() if e.after == "-")
    survivors = [Survivor(e, 1, 1, 0, 0, False) for e in (times, other, dropped)]
    ordered = [s.edit for s in simplest_first(survivors)]
    assert ordered == [dropped, times, other]  # `f(s[1:])` before `1 * f(s[1:])`


SLOW_REPORTS = """import time

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    yield
    if call.when == "call" and call.excinfo is not None and call.duration > 0.01:
        time.sleep(1.5)  # a plugin's slow report of a slow failure (hypothesis's, say)
"""


def test_a_hung_candidate_stops_in_its_test_and_every_other_candidate_is_judged(project):
    """The per-candidate alarm fires in the candidate's own test only: a second clock left
    armed fired in a plugin's report hook wrapper, which under the project's `filterwarnings =
    error` ended pytest with an INTERNALERROR, and the batch's other candidates were never
    judged (seen on packaging: its fix was among them). A process that ends in the middle of a
    batch for any reason goes on in a new one."""
    (project / "conftest.py").write_text(SLOW_REPORTS, encoding="utf-8")
    (project / "pytest.ini").write_text("[pytest]\nfilterwarnings =\n    error\n")
    source = (project / "clamp.py").read_text()
    target = locate(source, "clamp_count")
    edits = generate_edits(target.code, target.start_line + 1, {BUG_LINE: 0}, limit=20)
    fix = next(i for i, e in enumerate(edits) if (e.before, e.after) == ("<", "<="))
    hang = target.code.replace("kept += 1", "while True:\n                pass")
    # and a candidate that ends the process itself: marked, and the others judged in a new one
    leave = target.code.replace("kept += 1", "__import__('os')._exit(0)")
    codes = [CandidateCode(999, hang, target.start_line + 1)]
    codes += [CandidateCode(998, leave, target.start_line + 1)]
    codes += [CandidateCode(i, e.code, target.start_line + 1) for i, e in enumerate(edits)]
    with ProjectRunner(project, RunnerSettings(test_timeout_s=10)) as runner:
        searcher = SearchRunner(runner, project / "clamp.py", "clamp_count", source)
        judged = searcher.judge(codes, FAILING, PASSING, per_candidate={"max_timeout_s": 1.0})
    assert judged.error == ""
    assert judged.verdicts[999].timed_out
    assert judged.verdicts[998].problem.startswith("ended the test process")
    assert len(judged.verdicts) == len(codes)
    assert set(judged.verdicts[fix].outcomes.values()) == {"passed"}
