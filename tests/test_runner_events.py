"""The runner's pure parts, without a subprocess: the plugin's event stream parsed into typed
events (events.py), and events from one or more pytest processes assembled into results
(assembly.py: paths mapped back from the shadow copy, kills, restarts, collection errors, probes).

The event dicts below are what `_selfdebug_pytest_plugin_v1.py` emits (same keys, same types).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfdebug.server.runner.assembly import (
    ResultAssembler,
    RunTally,
    attach_probes,
    truncate,
    uncollected,
)
from selfdebug.server.runner.events import (
    Collected,
    CollectionError,
    EventLog,
    FinishedTest,
    JsonLines,
    ProbesTruncated,
    RawFrame,
    SessionFinished,
    StartedTest,
    Unconfigured,
    parse_event,
    parse_events,
    parse_probe_record,
)
from selfdebug.server.runner.results import CollectError, ProbeRecord
from selfdebug.server.runner.results import TestResult as Outcome
from selfdebug.server.runner.settings import RunnerSettings
from selfdebug.server.runner.shadow import ShadowCopy
from selfdebug.server.runner.supervision import START_MARKER, ProcessRun


def lines(*events: object) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in events)


def result(nodeid: str, outcome: str = "passed", **extra: object) -> dict[str, object]:
    """A `result` event as the plugin writes it."""
    return {
        "event": "result", "nodeid": nodeid, "outcome": outcome, "duration": 0.01,
        "exc_type": "", "message": "", "assert_op": None, "assert_left": None,
        "assert_right": None, "frames": [], "stdout": "", "stderr": "", "longrepr": "",
    } | extra  # fmt: skip


def collected(shadow_root: Path, *nodeids: str) -> dict[str, object]:
    items = [
        {"nodeid": n, "path": str(shadow_root / n.partition("::")[0]), "line": 3, "domain": n}
        for n in nodeids
    ]
    return {"event": "collected", "items": items}


# -- parsing ---------------------------------------------------------------------------------------
def test_each_plugin_event_becomes_its_typed_event() -> None:
    frame = {"path": "/s/p/calc.py", "line": 4, "function": "mean", "code": "return s / 2"}
    failed = result(
        "t.py::test_mean", "failed", exc_type="AssertionError", message="assert 3.0 == 2",
        assert_op="==", assert_left="3.0", assert_right="2", frames=[frame], stdout="out\n",
    )  # fmt: skip
    data = lines(
        {"event": "configure", "pid": 7, "rootdir": "/s/p"},
        {"event": "collected", "items": [
            {"nodeid": "t.py::test_mean", "path": "/s/p/t.py", "line": 5, "domain": "test_mean"},
        ]},
        {"event": "start", "nodeid": "t.py::test_mean"},
        failed,
        {"event": "collect_error", "nodeid": "u.py", "path": "/s/p/u.py", "line": 2,
         "exc_type": "ImportError", "message": "no name x", "longrepr": "E ImportError"},
        {"event": "collect_failed", "nodeid": "u.py", "longrepr": "E ImportError"},
        {"event": "finish", "exitstatus": 1},
        {"event": "unconfigured"},
    )  # fmt: skip
    events = parse_events(JsonLines().feed(data))
    assert [type(e).__name__ for e in events] == [
        "Configured", "Collected", "StartedTest", "FinishedTest", "CollectionError",
        "CollectionFailed", "SessionFinished", "Unconfigured",
    ]  # fmt: skip
    finished = events[3]
    assert isinstance(finished, FinishedTest)
    assert (finished.outcome, finished.exc_type, finished.stdout) == (
        "failed",
        "AssertionError",
        "out\n",
    )
    assert (finished.assert_left, finished.assert_op, finished.assert_right) == ("3.0", "==", "2")
    assert finished.frames == (RawFrame("/s/p/calc.py", 4, "mean", "return s / 2"),)
    assert isinstance(events[1], Collected)
    assert [(i.nodeid, i.path, i.line) for i in events[1].items] == [
        ("t.py::test_mean", "/s/p/t.py", 5)
    ]
    assert events[4] == CollectionError(
        "u.py", "/s/p/u.py", 2, "ImportError", "no name x", "E ImportError"
    )
    assert events[6] == SessionFinished(1) and events[7] == Unconfigured()


def test_lines_arrive_in_pieces_and_only_complete_ones_count() -> None:
    decoder = JsonLines()
    whole = lines({"event": "start", "nodeid": "t.py::a"}, {"event": "unconfigured"})
    cut = whole.index(b"\n") + 5  # inside the second line
    assert parse_events(decoder.feed(whole[:cut])) == [StartedTest("t.py::a")]
    assert decoder.feed(b"") == []
    assert parse_events(decoder.feed(whole[cut:])) == [Unconfigured()]


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        b"\xff\xfe",  # not UTF-8
        b"[1, 2]",  # JSON, not an object
        b'{"event": "no_such_event", "nodeid": "t.py::a"}',
        b'{"event": "result", "outcome": "passed"}',  # no nodeid
        b'{"event": "result", "nodeid": "t.py::a", "outcome": "exploded"}',
        b'{"event": "result", "nodeid": "t.py::a", "outcome": "failed", "frames": [{"line": 1}]}',
        b'{"event": "start"}',
        b'{"event": "collected", "items": [{"nodeid": "t.py::a"}]}',
        b'{"event": "finish", "exitstatus": "lots"}',
    ],
)
def test_a_line_that_is_not_a_plugin_event_is_dropped(raw: bytes) -> None:
    # A test can write into the stream's folder: its lines must not break the run's reading.
    decoder = JsonLines()
    good = lines({"event": "start", "nodeid": "t.py::b"})
    assert parse_events(decoder.feed(raw + b"\n" + good)) == [StartedTest("t.py::b")]


def test_missing_optional_fields_take_the_plugins_defaults() -> None:
    event = parse_event({"event": "result", "nodeid": "t.py::a", "outcome": "error",
                         "duration": None, "message": None, "assert_left": None})  # fmt: skip
    assert event == FinishedTest("t.py::a", "error")
    assert parse_event({"event": "finish"}) == SessionFinished(0)
    error = parse_event({"event": "collect_error", "nodeid": "u.py", "path": "/s/u.py"})
    assert isinstance(error, CollectionError) and (error.line, error.exc_type) == (0, "")


def test_the_event_log_answers_with_the_last_collection(tmp_path: Path) -> None:
    log = EventLog(parse_events(JsonLines().feed(lines(
        collected(tmp_path, "t.py::old"), collected(tmp_path, "t.py::a", "t.py::b"),
        result("t.py::a"), result("t.py::b", "failed"),
    ))))  # fmt: skip
    assert log.has_collected() and log.collected_ids() == ["t.py::a", "t.py::b"]
    assert [r.outcome for r in log.results()] == ["passed", "failed"]
    assert EventLog().collected_ids() == [] and not EventLog().has_collected()


def test_probe_records_are_typed_and_malformed_ones_dropped() -> None:
    record = parse_probe_record(
        {"probe": "p1", "line": 3, "kind": "assign", "values": {"x": 1}, "test": "t.py::a"}
    )
    assert record == ProbeRecord("p1", 3, "assign", {"x": "1"}, test="t.py::a")
    assert parse_probe_record({"truncated": True, "test": "t.py::a"}) == ProbesTruncated("t.py::a")
    assert parse_probe_record({"truncated": True}) == ProbesTruncated(None)
    assert parse_probe_record({"probe": "p", "line": "x"}) is None
    assert parse_probe_record({"probe": "p", "values": [1]}) is None
    assert parse_probe_record("text") is None


# -- assembly --------------------------------------------------------------------------------------
@pytest.fixture
def shadow(tmp_path: Path) -> ShadowCopy:
    user = tmp_path / "user" / "proj"
    user.mkdir(parents=True)
    return ShadowCopy(user, tmp_path / "base")


def process(shadow: ShadowCopy, *events: object, **fields: object) -> ProcessRun:
    log = EventLog(parse_events(JsonLines().feed(lines(*events))))
    return ProcessRun(events=log, **fields)  # type: ignore[arg-type]


def test_paths_and_lines_are_mapped_back_to_the_users_tree(shadow: ShadowCopy) -> None:
    copy = shadow.root / "calc.py"
    # line 10 of the instrumented copy is line 4 of the user's file
    assembler = ResultAssembler(shadow, RunnerSettings(), {copy: [1, 2, 3, 3, 3, 3, 3, 3, 3, 4]})
    event = parse_event(result(
        "t.py::a", "failed", message=f"boom in {copy}", longrepr=f"{copy}:10: boom",
        frames=[{"path": str(copy), "line": 10, "function": "f", "code": "x"},
                {"path": "/usr/lib/x.py", "line": 10, "function": "g", "code": ""}],
    ))  # fmt: skip
    assert isinstance(event, FinishedTest)
    test = assembler.test_result(event)
    user = shadow.project_root / "calc.py"
    assert [(f.path, f.line) for f in test.frames] == [(str(user), 4), ("/usr/lib/x.py", 10)]
    assert test.message == f"boom in {user}" and test.longrepr == f"{user}:10: boom"


def test_long_texts_are_cut_in_the_middle_with_a_marker(shadow: ShadowCopy) -> None:
    assert truncate("abc", 3) == "abc"
    assert truncate("a" * 5 + "b" * 5, 4) == "aa\n...[6 characters truncated]...\nbb"
    settings = RunnerSettings(capture_cap_chars=10)
    event = parse_event(result("t.py::a", stdout="x" * 50 + "END"))
    assert isinstance(event, FinishedTest)
    stdout = ResultAssembler(shadow, settings).test_result(event).stdout
    assert stdout == "xxxxx\n...[43 characters truncated]...\nxxEND"


def test_a_killed_test_gets_its_own_last_output_and_the_rest_a_second_process(
    shadow: ShadowCopy,
) -> None:
    settings = RunnerSettings(test_timeout_s=2)
    tally = RunTally(ResultAssembler(shadow, settings))
    output = b"noise\n" + START_MARKER + b"t.py::b\nstuck in b\n"
    first = process(
        shadow,
        collected(shadow.root, "t.py::a", "t.py::b", "t.py::c"),
        {"event": "start", "nodeid": "t.py::a"}, result("t.py::a"),
        {"event": "start", "nodeid": "t.py::b"},
        output=output, kill_reason="timeout", killed_nodeid="t.py::b",
    )  # fmt: skip
    assert tally.add(first) == []
    assert tally.remaining() == ["t.py::c"]
    second = process(shadow, collected(shadow.root, "t.py::c"), result("t.py::c", "failed"))
    tally.add(second)
    run = tally.result(["t.py"], isolation="rlimits", probes=False, cancelled=False)
    assert [(t.nodeid, t.outcome) for t in run.tests] == [
        ("t.py::a", "passed"), ("t.py::b", "timeout"), ("t.py::c", "failed"),
    ]  # fmt: skip
    killed = run.tests[1]
    assert killed.stdout == "stuck in b\n" and killed.exc_type == "Timeout"
    assert killed.duration == 2 and "2 s timeout" in killed.message
    assert run.timed_out and not run.cancelled and run.error == ""


def test_tests_left_when_the_restarts_run_out_say_why(shadow: ShadowCopy) -> None:
    tally = RunTally(ResultAssembler(shadow, RunnerSettings(max_processes=4)))
    tally.add(process(
        shadow, collected(shadow.root, "t.py::a", "t.py::b"),
        {"event": "start", "nodeid": "t.py::a"},
        kill_reason="processes", killed_nodeid="t.py::a",
    ))  # fmt: skip
    run = tally.result(["t.py"], isolation="bwrap", probes=False, cancelled=False)
    (killed, left) = run.tests
    assert (killed.outcome, killed.exc_type) == ("error", "Killed")
    assert (left.outcome, left.exc_type) == ("error", "NotRun")
    assert left.message == "not run: killed: the test started more than 4 processes"
    assert not run.timed_out


def test_a_process_that_says_nothing_leaves_its_output_as_the_error(shadow: ShadowCopy) -> None:
    tally = RunTally(ResultAssembler(shadow, RunnerSettings()))
    silent = process(shadow, output=f"ERROR: usage in {shadow.root}/x\n".encode(), exit_code=4)
    tally.note_silent_exit(silent, tally.add(silent))
    mute = process(shadow, exit_code=5)
    tally.note_silent_exit(mute, tally.add(mute))
    run = tally.result(["t.py::a"], isolation="bwrap", probes=False, cancelled=False)
    user = shadow.project_root
    assert run.error == f"ERROR: usage in {user}/x\npytest exited with code 5 before any test"
    assert run.tests == [] and run.exit_code == 5


def test_collection_errors_name_the_file_and_fail_the_tests_that_needed_it(
    shadow: ShadowCopy,
) -> None:
    tally = RunTally(ResultAssembler(shadow, RunnerSettings()))
    broken = shadow.root / "tests" / "test_b.py"
    new_errors = tally.add(process(
        shadow,
        {"event": "collect_error", "nodeid": "tests/test_b.py", "path": str(broken), "line": 1,
         "exc_type": "ImportError", "message": f"cannot import x ({broken})", "longrepr": "E"},
        {"event": "collect_failed", "nodeid": "tests/test_b.py", "longrepr": "ignored"},
        {"event": "collect_failed", "nodeid": "tests/test_c.py", "longrepr": "E\nE   NameError"},
    ))  # fmt: skip
    user_b = shadow.project_root / "tests" / "test_b.py"
    assert new_errors == [
        CollectError("tests/test_b.py", str(user_b), 1, "ImportError",
                     f"cannot import x ({user_b})", "E"),
        CollectError("tests/test_c.py", str(shadow.project_root / "tests/test_c.py"), 0,
                     "CollectError", "E   NameError", "E\nE   NameError"),
    ]  # fmt: skip
    tally.add(
        process(shadow, collected(shadow.root, "tests/test_a.py::t"), result("tests/test_a.py::t"))
    )
    run = tally.result(
        ["tests/test_a.py::t", "tests/test_b.py::t"], isolation="bwrap", probes=False,
        cancelled=False,
    )  # fmt: skip
    (ok, missing) = run.tests
    assert ok.outcome == "passed"
    assert (missing.nodeid, missing.exc_type) == ("tests/test_b.py::t", "ImportError")
    assert missing.message == f"{user_b}:1: ImportError: cannot import x ({user_b})"
    assert f"{user_b}:1: ImportError" in run.error


def test_requested_tests_never_collected_are_errors_not_silence() -> None:
    error = CollectError("t.py", "/u/t.py", 3, "SyntaxError", "bad")
    found = uncollected(
        ["t.py::a", "t.py::b", "u.py::c", "t.py", "v.py::p"], ["t.py::a", "v.py::p[1]"], [error]
    )
    assert [(t.nodeid, t.exc_type, t.message) for t in found] == [
        ("t.py::b", "SyntaxError", "/u/t.py:3: SyntaxError: bad"),
        ("u.py::c", "NotCollected", "not collected"),
    ]
    assert uncollected(["t.py::a"], [], []) == []


def test_probe_records_go_to_their_test_and_truncation_to_its_test_or_all() -> None:
    a, b = Outcome("t.py::a", "passed"), Outcome("t.py::b", "failed")
    record = ProbeRecord("p1", 3, "assign", {"x": "1"}, test="t.py::b")
    attach_probes([a, b], [record, ProbeRecord("p2", 1, "entry", {}, test="gone"),
                           ProbesTruncated("t.py::a")])  # fmt: skip
    assert (a.probes, b.probes) == ([], [record])
    assert (a.probes_truncated, b.probes_truncated) == (True, False)
    attach_probes([a, b], [ProbesTruncated(None)])
    assert b.probes_truncated


def test_probe_records_of_every_process_reach_the_result(shadow: ShadowCopy) -> None:
    tally = RunTally(ResultAssembler(shadow, RunnerSettings()))
    record = ProbeRecord("p1", 3, "assign", {"x": "1"}, test="t.py::a")
    first = process(
        shadow, collected(shadow.root, "t.py::a"), result("t.py::a"), probe_records=[record]
    )
    tally.add(first)
    assert tally.result(["t.py::a"], isolation="b", probes=True, cancelled=False).tests[
        0
    ].probes == [record]


def test_one_rule_says_which_tests_a_requested_node_id_runs():
    """The engine's "no result" and the runner's "never collected" use this one rule."""
    from selfdebug.server.runner.results import nodeid_covers

    assert nodeid_covers("t.py::test_a", "t.py::test_a")
    assert nodeid_covers("t.py::test_a", "t.py::test_a[1-2]")
    assert nodeid_covers("t.py::TestA", "t.py::TestA::test_b")
    assert nodeid_covers("t.py", "t.py::test_a")
    assert not nodeid_covers("t.py::test_a", "t.py::test_ab")
    assert not nodeid_covers("t.py::test_a[1]", "t.py::test_a")
