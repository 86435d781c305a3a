"""The server's translation modules without a server: command arguments, positions, test
failures -> diagnostics, the fix edit and its staleness check, progress wording, the report,
and `selfdebug serve` refusing bad startup arguments."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol.types import CodeActionKind, PositionEncodingKind
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path

from selfdebug.server.engine.types import DebugResult, Progress
from selfdebug.server.engine.types import TestTally as Tally
from selfdebug.server.lsp.arguments import parse_target
from selfdebug.server.lsp.code_actions import KINDS, function_actions, wanted
from selfdebug.server.lsp.diagnostics import (
    DiagnosticStore,
    FunctionSpan,
    failure_message,
    lsp_diagnostics,
)
from selfdebug.server.lsp.edits import (
    changed_line_spans,
    fix_edit,
    fixed_function_text,
    moved_since_request,
    stale_reason,
    take_snapshot,
)
from selfdebug.server.lsp.positions import byte_column, lsp_position
from selfdebug.server.lsp.progress import progress_message
from selfdebug.server.lsp.report import from_result, render_markdown, write_markdown
from selfdebug.server.runner.results import Frame, RunResult
from selfdebug.server.runner.results import TestResult as Outcome

SOURCE = '''\
"""Module."""


class Box:
    def area(self, w, h):
        return w * h + 1


def greet(name):
    return "héllo 😀 " + name
'''


# -- arguments -----------------------------------------------------------------------------------
def test_arguments_by_qualname_or_position():
    target = parse_target(({"uri": "file:///p/a.py", "qualname": "f", "version": 3},))
    assert (target.qualname, target.version, target.position) == ("f", 3, None)
    target = parse_target(({"uri": "file:///p/a.py", "position": {"line": 4, "character": 2}},))
    assert target.position is not None and (target.position.line, target.position.character) == (
        4,
        2,
    )


@pytest.mark.parametrize(
    "arguments, fragment",
    [
        ((), "expected one argument"),
        (({"uri": "file:///a.py"},), "qualname or position"),
        (({"uri": "http://x/a.py", "qualname": "f"},), "file: URI"),
        (({"uri": "file:///a.py", "qualname": "f", "version": "3"},), "expected int"),
        (
            ({"uri": "file:///a.py", "qualname": "f", "mode": "magic"},),
            "mode: must be one of auto, none",
        ),
        (({"uri": "file:///a.py", "qualname": "f", "typo": 1},), "typo"),
        (({"uri": "file:///a.py", "position": {"line": -1, "character": 0}},), "line"),
    ],
)
def test_bad_arguments_raise_invalid_params(arguments, fragment):
    with pytest.raises(JsonRpcInvalidParams) as error:
        parse_target(arguments)
    assert fragment in str(error.value)


# -- positions -----------------------------------------------------------------------------------
def test_positions_count_utf16_units():
    data = SOURCE.encode("utf-8")
    plus = data.index(b'" + name')
    position = lsp_position(data, plus)
    line_text = SOURCE.splitlines()[position.line]
    # `    return "héllo 😀 ` : é is 1 unit, 😀 is 2 units (4 bytes)
    assert position.character == line_text.index('" + name') + 1
    assert byte_column(line_text, position.character) == plus - data.rfind(b"\n", 0, plus) - 1


@pytest.mark.parametrize(
    ("kind", "units"),
    [
        (PositionEncodingKind.Utf8, [0, 1, 3, 7, 8]),
        (PositionEncodingKind.Utf16, [0, 1, 2, 4, 5]),
        (PositionEncodingKind.Utf32, [0, 1, 2, 3, 4]),
    ],
)
def test_one_column_rule_for_every_negotiated_encoding(kind, units):
    """`a é 😀 b`: the server's positions and the instrumenter's ranges count alike."""
    from pygls.workspace.position_codec import PositionCodec

    from selfdebug.instrument import locate_function

    line = "aé😀b"
    data = line.encode("utf-8")
    codec = PositionCodec(kind)
    starts = [len(line[:i].encode("utf-8")) for i in range(len(line) + 1)]
    assert [lsp_position(data, b, codec).character for b in starts] == units
    assert [byte_column(line, u, codec) for u in units] == starts
    if kind == PositionEncodingKind.Utf16:
        source = f"def f():\n    return '{line}'\n".encode()
        end = locate_function(source, "f").lsp_range.end
        assert end == type(end)(1, lsp_position(source, len(source) - 1).character)


# -- code actions --------------------------------------------------------------------------------
def test_only_filter_and_action_arguments():
    quick, refactor = "quickfix.selfdebug", "refactor.rewrite.selfdebug"
    assert wanted(None, quick) and wanted(["quickfix"], quick) and wanted([quick], quick)
    assert not wanted(["refactor"], quick) and not wanted(["source.organizeImports"], quick)
    assert wanted([CodeActionKind.QuickFix], quick) and not wanted([CodeActionKind.Refactor], quick)
    assert wanted(["refactor"], refactor) and wanted([CodeActionKind.RefactorRewrite], refactor)
    assert not wanted(["refactor.extract"], refactor) and not wanted(["quickfix"], refactor)
    assert not any(wanted(["source"], kind) or wanted(["source.fixAll"], kind) for kind in KINDS)
    actions = function_actions("file:///a.py", 7, "Box.area", "area")
    # the first action's mode is the setting's, read when the session starts: not fixed here
    modes = [a.command.arguments[0].get("mode", "unset") for a in actions]
    assert modes == ["unset", "print", "explain", "unset"]
    assert all(a.command.arguments[0]["version"] == 7 for a in actions)


# -- diagnostics ---------------------------------------------------------------------------------
def _run(tmp_path: Path) -> tuple[RunResult, FunctionSpan]:
    source_file = tmp_path / "box.py"
    test_file = tmp_path / "tests" / "test_box.py"
    span = FunctionSpan(source_file, "Box.area", 4, 6)
    failing = Outcome(
        "tests/test_box.py::test_area",
        "failed",
        exc_type="AssertionError",
        assert_left="7",
        assert_right="6",
        assert_op="==",
        frames=[Frame(str(test_file), 9, "test_area")],
    )
    crashing = Outcome(
        "tests/test_box.py::test_area_zero",
        "failed",
        exc_type="ZeroDivisionError",
        message="division by zero\nmore",
        frames=[Frame(str(test_file), 12, "test_area_zero"), Frame(str(source_file), 6, "area")],
    )
    passing = Outcome("tests/test_box.py::test_ok", "passed")
    return RunResult([failing, crashing, passing], "bwrap", 0.1), span


def test_failures_become_linked_diagnostics(tmp_path: Path):
    run, span = _run(tmp_path)
    by_uri = lsp_diagnostics(run, span, tmp_path)
    function_uri = from_fs_path(str(span.path))
    test_uri = from_fs_path(str(tmp_path / "tests" / "test_box.py"))
    on_function, on_test = by_uri[function_uri], by_uri[test_uri]
    assert len(on_function) == 2 and len(on_test) == 2
    assertion, crash = on_function
    assert assertion.range.start.line == 4  # no frame inside: the def line
    assert crash.range.start.line == 5  # the failing line inside the function (1-based 6)
    assert assertion.message == "tests/test_box.py::test_area failed: got 7, expected 6"
    # the summary line, then the hover's evidence (the rest of the exception's message)
    assert crash.message.splitlines() == [
        "tests/test_box.py::test_area_zero failed: ZeroDivisionError: division by zero",
        "more",
    ]
    assert {d.range.start.line for d in on_test} == {8, 11}
    assert all(d.source == "selfdebug" and d.severity == 1 for d in on_function + on_test)
    assert on_test[0].related_information[0].location.uri == function_uri
    assert assertion.related_information[0].location.uri == test_uri


def test_timeouts_and_other_operators_read_well():
    timeout = Outcome("t::a", "timeout")
    assert failure_message(timeout) == "t::a timed out"
    less = Outcome("t::b", "failed", assert_left="3", assert_right="2", assert_op="<")
    assert failure_message(less) == "t::b failed: assert 3 < 2 is false"


def test_store_keeps_each_functions_diagnostics_apart(tmp_path: Path):
    run, span = _run(tmp_path)
    store = DiagnosticStore()
    uri = from_fs_path(str(span.path)) or ""
    first = ("uri-a", "Box.area")
    second = ("uri-a", "greet")
    changed = store.replace(first, lsp_diagnostics(run, span, tmp_path))
    assert uri in changed
    store.replace(second, {uri: [lsp_diagnostics(run, span, tmp_path)[uri][0]]})
    assert len(store.for_uri(uri)) == 3
    assert store.clear(first) >= {uri}
    assert len(store.for_uri(uri)) == 1
    assert store.owners_in("uri-a") == [second]


# -- edits ---------------------------------------------------------------------------------------
def test_fix_edit_replaces_exactly_the_function(tmp_path: Path):
    snapshot = take_snapshot("file:///p/box.py", tmp_path / "box.py", 4, SOURCE, "greet")
    fixed_file = SOURCE.replace('"héllo 😀 " + name', 'f"héllo 😀 {name}"')
    new_text = fixed_function_text(snapshot, fixed_file, None)
    assert new_text == 'def greet(name):\n    return f"héllo 😀 {name}"'
    edit = fix_edit(snapshot, new_text, label="Fix greet", description="why")
    (change,) = edit.document_changes
    assert change.text_document.version == 4
    (text_edit,) = change.edits  # only the changed line, not the whole function
    assert (text_edit.range.start.line, text_edit.range.start.character) == (9, 0)
    assert text_edit.range.end.line == 9
    assert text_edit.range.end.character == len('    return "héllo 😀 " + name') + 1  # 😀 = 2
    assert text_edit.new_text == '    return f"héllo 😀 {name}"'
    annotation = edit.change_annotations[text_edit.annotation_id]
    assert annotation.needs_confirmation and annotation.label == "Fix greet"


def test_changed_line_spans_are_minimal_and_rebuild_the_new_text():
    old = "def f(x):\n    a = 1\n    b = 2\n    return a + b\n"
    new = "def f(x):\n    a = 1\n    b = 3\n    c = 4\n    return a + b + c\n"
    spans = changed_line_spans(old.encode(), new)
    assert spans == [
        (len("def f(x):\n    a = 1\n"), len(old), "    b = 3\n    c = 4\n    return a + b + c\n")
    ]
    rebuilt = old
    for start, end, text in reversed(spans):
        rebuilt = rebuilt[:start] + text + rebuilt[end:]
    assert rebuilt == new
    assert changed_line_spans(old.encode(), old) == []
    # a deletion and an insertion far apart are two edits
    two = changed_line_spans(old.encode(), "# top\n" + old.replace("    b = 2\n", ""))
    assert [text for _, _, text in two] == ["# top\n", ""]


def test_stale_when_version_or_function_text_changed(tmp_path: Path):
    snapshot = take_snapshot("file:///p/box.py", tmp_path / "box.py", 4, SOURCE, "Box.area")
    assert stale_reason(snapshot, 4, SOURCE) is None
    assert "version 4 -> 5" in (stale_reason(snapshot, 5, SOURCE) or "")
    edited = SOURCE.replace("w * h + 1", "w * h")
    unversioned = take_snapshot("file:///p/box.py", tmp_path / "box.py", None, SOURCE, "Box.area")
    assert "was edited" in (stale_reason(unversioned, None, edited) or "")
    gone = SOURCE.replace("def area", "def volume")
    assert "was edited" in (stale_reason(unversioned, None, gone) or "")


def test_a_session_for_an_older_version_of_the_document_does_not_start(tmp_path: Path):
    snapshot = take_snapshot("file:///p/box.py", tmp_path / "box.py", 4, SOURCE, "Box.area")
    assert moved_since_request(4, snapshot) is None
    assert moved_since_request(None, snapshot) is None  # the caller did not say
    assert moved_since_request(3, snapshot) == (
        "the document changed since the request (version 3 -> 4)"
    )
    unopened = take_snapshot("file:///p/box.py", tmp_path / "box.py", None, SOURCE, "Box.area")
    assert moved_since_request(3, unopened) is None  # read from disk: nothing to compare


# -- progress and report -------------------------------------------------------------------------
def test_progress_wording():
    assert (
        progress_message(Progress(2, 10, "asking the model", 15)) == "turn 2/10: asking the model"
    )
    assert progress_message(Progress(0, 10, "running 3 tests", 0)) == "running 3 tests"
    assert progress_message(Progress(1, 2, "x", 5, message="turn 1/2: x")) == "turn 1/2: x"


def test_report_markdown(tmp_path: Path):
    result = DebugResult(
        stop_reason="passed",
        turns=1,
        mode="ut",
        original_function="def f(): return 1\n",
        fixed_function="def f(): return 2\n",
        fixed_file="def f(): return 2\n",
        diff="-def f(): return 1\n+def f(): return 2\n",
        explanation="Returned the wrong constant.",
        chosen_before=Tally(0, 1),
        chosen_after=Tally(1, 1),
        transcript_path=tmp_path / "transcript.jsonl",
    )
    report = from_result("file:///p/a.py", "f", result)
    report.applied = True
    path = write_markdown(report, tmp_path)
    text = path.read_text(encoding="utf-8")
    assert text == render_markdown(report) == report.markdown
    assert "passes 1/1 chosen" in text and "Returned the wrong constant." in text
    assert "```diff\n-def f(): return 1" in text and "**Edit applied:** yes" in text
    payload = report.to_json()
    assert payload["transcriptPath"].endswith("transcript.jsonl")
    assert payload["reportPath"] == str(path) and payload["success"] is True


# -- the diagnostics state is one object ----------------------------------------------------------
def test_store_forgets_only_functions_whose_text_changed_and_remembers_what_was_tested(
    tmp_path: Path,
):
    run, span = _run(tmp_path)
    uri = from_fs_path(str(span.path)) or ""
    store = DiagnosticStore()
    area, greet = (uri, "Box.area"), (uri, "greet")
    by_uri = lsp_diagnostics(run, span, tmp_path)
    assert store.record(area, "hash-area", by_uri) >= {uri}
    store.record(greet, "hash-greet", {uri: by_uri[uri][:1]})
    store.note_tested(greet)
    store.note_tested(area)
    store.note_tested(("file:///other.py", "f"))
    assert store.tested_in(uri) == ["greet", "Box.area"]  # in the order they were first tested

    now = {"Box.area": "hash-area", "greet": "edited"}
    assert store.drop_outdated(uri, now.get) == {uri}
    assert store.owners_in(uri) == [area] and len(store.for_uri(uri)) == 2
    assert store.drop_outdated(uri, now.get) == set()  # area's text is what its run saw
    assert store.drop_outdated(uri, lambda qualname: None) == set(by_uri)  # the function is gone
    assert store.for_uri(uri) == [] and store.tested_in(uri) == ["greet", "Box.area"]


def _serve(*arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "selfdebug", "serve", *arguments]
    return subprocess.run(
        command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )


def test_serve_reports_bad_startup_arguments_without_a_traceback(tmp_path: Path):
    bad_port = _serve("--tcp", "127.0.0.1:99999")
    assert bad_port.returncode == 2 and "port 0-65535" in bad_port.stderr
    missing_folder = tmp_path / "missing" / "server.log"
    bad_log = _serve("--log-file", str(missing_folder))
    assert bad_log.returncode == 2 and str(missing_folder) in bad_log.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = _serve("--tcp", f"127.0.0.1:{port}")
    assert busy.returncode == 1 and f"cannot listen on 127.0.0.1:{port}" in busy.stderr
    assert "Traceback" not in bad_port.stderr + bad_log.stderr + busy.stderr
