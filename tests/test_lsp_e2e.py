"""End to end over stdio: a real `selfdebug serve` process, a pytest-lsp client, real pytest runs
of the fixture project in the runner's sandbox, and a scripted model chosen through the server's
environment (SELFDEBUG_SCRIPTED_REPLIES)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Union

import pytest
import pytest_asyncio
from lsprotocol.types import (
    WORKSPACE_APPLY_EDIT,
    ApplyWorkspaceEditParams,
    ApplyWorkspaceEditResult,
    CancelParams,
    ClientCapabilities,
    ClientCodeActionKindOptions,
    ClientCodeActionLiteralOptions,
    CodeAction,
    CodeActionClientCapabilities,
    CodeActionContext,
    CodeActionParams,
    CodeActionTriggerKind,
    Command,
    Diagnostic,
    DidChangeConfigurationParams,
    DidChangeTextDocumentParams,
    DidOpenTextDocumentParams,
    DidSaveTextDocumentParams,
    ExecuteCommandParams,
    InitializeParams,
    Position,
    PublishDiagnosticsClientCapabilities,
    Range,
    ShowDocumentClientCapabilities,
    TextDocumentClientCapabilities,
    TextDocumentContentChangePartial,
    TextDocumentIdentifier,
    TextDocumentItem,
    VersionedTextDocumentIdentifier,
    WindowClientCapabilities,
    WorkDoneProgressBegin,
    WorkDoneProgressCancelParams,
    WorkDoneProgressEnd,
    WorkDoneProgressReport,
    WorkspaceClientCapabilities,
    WorkspaceEditClientCapabilities,
    WorkspaceFolder,
)
from pygls.exceptions import JsonRpcException
from pygls.protocol.json_rpc import JsonRPCRequestMessage
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import register_lsp_features
from pytest_lsp.protocol import LanguageClientProtocol

from selfdebug.server.engine.transcript import read_transcript

FIXTURES = Path(__file__).parent / "fixtures" / "lsp"
SERVER = [sys.executable, "-m", "selfdebug", "serve"]
CANCEL_MARKER = "test_settle_slowly_cancel_marker"

FIXED_MEAN = """\
def mean(values):
    total = 0
    for value in values:
        total += value
    return total / len(values)
"""
FIX_REPLY = (
    f"Bug: the sum is divided by one more than the number of values.\n```python\n{FIXED_MEAN}```\n"
)


class WatchingProtocol(LanguageClientProtocol):
    """Wakes the test whenever any message from the server has been handled."""

    def handle_message(self, message: Any) -> None:
        super().handle_message(message)
        self._server.tick()  # type: ignore[attr-defined]


def client_converter():
    """lsprotocol 2025.0.0 reads every code action that has a `command` as a bare Command (its
    hook tests only for the key); a CodeAction's `command` is an object, a Command's a string."""
    from pygls.protocol import default_converter

    converter = default_converter()

    def command_or_action(value: Any, _: type) -> Command | CodeAction:
        if isinstance(value.get("command"), str):
            return converter.structure(value, Command)
        return converter.structure(value, CodeAction)

    converter.register_structure_hook(Command | CodeAction, command_or_action)
    converter.register_structure_hook(Union[Command, CodeAction], command_or_action)  # noqa: UP007
    return converter


class E2EClient(LanguageClient):
    """pytest-lsp's client plus what this server sends: edits to apply and session reports."""

    def __init__(self) -> None:
        super().__init__(protocol_cls=WatchingProtocol, converter_factory=client_converter)
        register_lsp_features(self)
        self.edits: list[ApplyWorkspaceEditParams] = []
        self.reports: list[dict[str, Any]] = []
        self.configuration_requests = 0
        self._event: asyncio.Event | None = None

        @self.feature(WORKSPACE_APPLY_EDIT)
        def apply_edit(client: E2EClient, params: ApplyWorkspaceEditParams):
            client.edits.append(params)
            return ApplyWorkspaceEditResult(applied=True)

        @self.feature("selfdebug/sessionReport")
        def session_report(client: E2EClient, params: Any):
            client.reports.append(_plain(params))

    def tick(self) -> None:
        if self._event is not None:
            self._event.set()

    def progress_messages(self) -> list[str]:
        """Every work-done progress message the server sent, in order per token."""
        return [_message(r) for rs in self.progress_reports.values() for r in rs]

    def progress_token_with(self, text: str) -> Any:
        """The token of the first progress that reported `text`; None until one has."""
        for token, reports in self.progress_reports.items():
            if any(text in _message(r) for r in reports):
                return token
        return None

    async def until(self, predicate: Callable[[], Any], timeout: float = 20.0) -> Any:
        """Wait (without sleeping) until `predicate()` is truthy after some server message."""
        if self._event is None:
            self._event = asyncio.Event()
        deadline = time.monotonic() + timeout
        while not (value := predicate()):
            self._event.clear()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("condition not met in time")
            try:
                await asyncio.wait_for(self._event.wait(), remaining)
            except asyncio.TimeoutError:
                raise TimeoutError("condition not met in time") from None
        return value


def _message(report: Any) -> str:
    """A progress report's message ("" for a begin or end without one)."""
    return getattr(report, "message", "") or ""


def _plain(value: Any) -> Any:
    """pygls hands custom notification params over as namedtuples; turn them into dicts."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


CAPABILITIES = ClientCapabilities(
    workspace=WorkspaceClientCapabilities(
        apply_edit=True,
        configuration=True,
        workspace_edit=WorkspaceEditClientCapabilities(
            document_changes=True,
        ),
    ),
    window=WindowClientCapabilities(
        work_done_progress=True, show_document=ShowDocumentClientCapabilities(support=True)
    ),
    text_document=TextDocumentClientCapabilities(
        publish_diagnostics=PublishDiagnosticsClientCapabilities(
            related_information=True, version_support=True
        ),
        code_action=CodeActionClientCapabilities(
            code_action_literal_support=ClientCodeActionLiteralOptions(
                code_action_kind=ClientCodeActionKindOptions(value_set=["", "quickfix", "refactor"])  # type: ignore[list-item]
            )
        ),
    ),
)


def server_env(tmp_path: Path, script: dict[str, Any] | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELFDEBUG_")}
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    env["SELFDEBUG_CACHE_DIR"] = str(tmp_path / "cache")  # test discovery's answers
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if script is not None:
        path = tmp_path / "script.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        env["SELFDEBUG_SCRIPTED_REPLIES"] = str(path)
    return env


class Workspace:
    def __init__(self, client: E2EClient, project: Path) -> None:
        self.client = client
        self.project = project
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}

    def uri(self, relative: str) -> str:
        return from_fs_path(str(self.project / relative)) or ""

    def open(self, relative: str) -> str:
        uri = self.uri(relative)
        text = (self.project / relative).read_text(encoding="utf-8")
        self.texts[uri], self.versions[uri] = text, 1
        self.client.text_document_did_open(
            DidOpenTextDocumentParams(TextDocumentItem(uri, "python", 1, text))
        )
        return uri

    def change(self, uri: str, range_: Range, new_text: str) -> None:
        """Apply an edit locally and tell the server (incremental sync)."""
        self.texts[uri] = splice(self.texts[uri], range_, new_text)
        self.versions[uri] += 1
        self.client.text_document_did_change(
            DidChangeTextDocumentParams(
                text_document=VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                content_changes=[TextDocumentContentChangePartial(range=range_, text=new_text)],
            )
        )

    async def actions(
        self,
        uri: str,
        line: int,
        character: int,
        diagnostics: list[Diagnostic] | None = None,
        only: list[str] | None = None,
        trigger: CodeActionTriggerKind | None = None,
    ):
        position = Position(line=line, character=character)
        return await self.client.text_document_code_action_async(
            CodeActionParams(
                text_document=TextDocumentIdentifier(uri=uri),
                range=Range(start=position, end=position),
                context=CodeActionContext(
                    diagnostics=diagnostics or [],
                    only=only,  # type: ignore[arg-type]
                    trigger_kind=trigger,
                ),
            )
        )

    async def command(self, name: str, *arguments: Any) -> Any:
        return await self.client.workspace_execute_command_async(
            ExecuteCommandParams(command=name, arguments=list(arguments))
        )


def splice(text: str, range_: Range, new_text: str) -> str:
    """ASCII fixtures: UTF-16 columns are character columns here."""
    lines = text.splitlines(keepends=True)
    start = sum(len(line) for line in lines[: range_.start.line]) + range_.start.character
    end = sum(len(line) for line in lines[: range_.end.line]) + range_.end.character
    return text[:start] + new_text + text[end:]


@pytest_asyncio.fixture
async def start(tmp_path: Path):
    clients: list[E2EClient] = []

    async def start_server(
        script: dict[str, Any] | None = None,
        settings: dict[str, Any] | None = None,
        initialization_options: dict[str, Any] | None = None,
    ) -> Workspace:
        project = tmp_path / "project"
        if not project.exists():
            shutil.copytree(FIXTURES / "project", project)
            shutil.copyfile(FIXTURES / "broken_syntax.py", project / "broken_syntax.py")
        config = ClientServerConfig(
            server_command=SERVER,
            server_env=server_env(tmp_path, script),
            client_factory=E2EClient,
        )
        client = await config.start()
        assert isinstance(client, E2EClient)
        clients.append(client)
        folder_uri = from_fs_path(str(project)) or ""
        client.set_configuration(settings or {}, section="selfdebug", scope_uri=folder_uri)
        await client.initialize_session(
            InitializeParams(
                capabilities=CAPABILITIES,
                workspace_folders=[WorkspaceFolder(uri=folder_uri, name="project")],
                initialization_options=initialization_options,
            )
        )
        return Workspace(client, project)

    yield start_server
    for client in clients:
        await client.shutdown_session()
        await client.stop()


def commands_of(actions) -> list[tuple[str, str, dict[str, Any]]]:
    return [(a.title, a.command.command, a.command.arguments[0]) for a in actions or []]


# ---------------------------------------------------------------------------------------------


async def test_code_actions_on_and_off_a_function(start):
    ws = await start(initialization_options={"mode": "simple"})
    uri = ws.open("calc.py")

    listed = commands_of(await ws.actions(uri, 3, 6))  # on `def mean`'s name
    assert [title for title, _, _ in listed] == [
        "Self-debug `mean`",
        "Self-debug `mean` with print debugging",
        "Self-debug `mean` explaining the code",
        "Run tests for `mean`",
    ]
    assert [command for _, command, _ in listed] == ["selfdebug.selfDebug"] * 3 + [
        "selfdebug.runTests"
    ]
    first = listed[0][2]
    assert first == {"uri": uri, "qualname": "mean", "version": 1}  # mode: the setting's, later
    assert listed[1][2]["mode"] == "print" and listed[2][2]["mode"] == "explain"

    method = commands_of(await ws.actions(uri, 15, 12))  # on Stats.spread's def line
    assert method[0][0] == "Self-debug `spread`"
    assert method[0][2]["qualname"] == "Stats.spread"
    assert all(a.kind == "refactor.rewrite.selfdebug" for a in await ws.actions(uri, 3, 0))

    # inside a body with no failing test there: no lightbulb on every line of every function
    assert await ws.actions(uri, 6, 8) is None  # `total += value`
    assert await ws.actions(uri, 16, 12) is None  # inside Stats.spread

    assert await ws.actions(uri, 0, 3) is None  # the module docstring: no function here
    assert await ws.actions(uri, 14, 0) is None  # `class Stats:` line, outside any def


async def test_quick_fix_on_a_failing_test_diagnostic_and_the_lightbulb(start):
    """Where a failing test's diagnostic is, "Self-debug" is a preferred quick fix bound to it (on
    the function, and on the test's failing assert: its failure); `context.only` and an
    automatic request (the lightbulb) are honoured; never a `source.*` action."""
    ws = await start(initialization_options={"mode": "search"})
    client = ws.client
    uri, test_uri = ws.open("calc.py"), ws.open("tests/test_calc.py")
    await ws.command("selfdebug.runTests", {"uri": uri, "qualname": "mean"})
    await client.until(lambda: any(d.code == "test-failure" for d in client.diagnostics[test_uri]))
    on_function = [d for d in client.diagnostics[uri] if d.code == "test-failure"]
    on_test = [d for d in client.diagnostics[test_uri] if d.code == "test-failure"]
    assert on_function and on_function[0].range.start.line == 3  # `def mean`

    # the failing assert in the test file: the test's failure, as a quick fix, and nothing else
    assert_line = on_test[0].range.start.line
    (fix,) = await ws.actions(test_uri, assert_line, 8, diagnostics=on_test[:1])
    assert fix.title.startswith("Self-debug the failure of `test_mean_")
    assert fix.kind == "quickfix.selfdebug" and fix.is_preferred
    assert list(fix.diagnostics or ()) == on_test[:1]
    assert await ws.actions(test_uri, assert_line, 8) is None  # the same line, no diagnostic

    # on `def mean` with its diagnostic: the quick fix first, then the refactor actions
    listed = await ws.actions(uri, 3, 6, diagnostics=on_function)
    assert [(a.title, a.kind) for a in listed][:2] == [
        ("Self-debug `mean`", "quickfix.selfdebug"),
        ("Self-debug `mean`", "refactor.rewrite.selfdebug"),
    ]
    assert len(listed) == 5
    quick = await ws.actions(uri, 3, 6, diagnostics=on_function, only=["quickfix"])
    assert [a.kind for a in quick] == ["quickfix.selfdebug"]
    refactor = await ws.actions(uri, 3, 6, diagnostics=on_function, only=["refactor"])
    assert {a.kind for a in refactor} == {"refactor.rewrite.selfdebug"} and len(refactor) == 4
    assert await ws.actions(uri, 3, 6, only=["source.fixAll"]) is None
    assert await ws.actions(uri, 3, 6, only=["source"]) is None

    # the lightbulb (an automatic request) on the def line with no diagnostic or selection: none;
    # with the diagnostic: the quick fix alone
    automatic = CodeActionTriggerKind.Automatic
    assert await ws.actions(uri, 3, 6, trigger=automatic) is None
    bulb = await ws.actions(uri, 3, 6, diagnostics=on_function, trigger=automatic)
    assert [a.kind for a in bulb] == ["quickfix.selfdebug"]


async def test_code_actions_on_a_file_with_syntax_errors(start):
    ws = await start()
    uri = ws.open("broken_syntax.py")
    listed = commands_of(await ws.actions(uri, 0, 5))  # on the intact `half`'s def line
    assert listed and listed[0][2]["qualname"] == "half"
    await ws.actions(uri, 5, 10)  # inside the broken def: any answer, but an answer
    await ws.actions(uri, 4, 6)  # on the broken def's line: likewise
    # ... and the server is still alive and answering
    assert commands_of(await ws.actions(uri, 0, 4))[0][0] == "Self-debug `half`"


async def test_full_session_publishes_diagnostics_applies_the_fix_and_clears(start):
    ws = await start(
        script={"replies": [FIX_REPLY], "prompt_form": "chat"},
        settings={"maxTurns": 2, "mode": "ut", "showReport": True},
    )
    client = ws.client
    uri = ws.open("calc.py")
    test_uri = ws.uri("tests/test_calc.py")
    action = (await ws.actions(uri, 3, 4))[0]  # on the `def mean` line
    result = await asyncio.wait_for(
        ws.command(action.command.command, *action.command.arguments), 120
    )

    # progress: one bar, begin -> reports (tests, model turns) -> end
    (reports,) = client.progress_reports.values()
    assert isinstance(reports[0], WorkDoneProgressBegin) and reports[0].cancellable
    assert "mean" in reports[0].title
    middle = reports[1:-1]
    assert middle and all(isinstance(r, WorkDoneProgressReport) for r in middle)
    messages = [r.message or "" for r in middle]
    assert any("running 2 tests" in m for m in messages), messages
    assert any(m.startswith("turn 1/2") for m in messages), messages
    # which tests, found how: shown before the model is called (issue 23), and in the transcript
    found = next(i for i, m in enumerate(messages) if "2 tests execute `mean`" in m)
    assert found < next(i for i, m in enumerate(messages) if m.startswith("turn 1/2")), messages
    assert "tests/test_calc.py::test_mean_of_two" in messages[found], messages
    transcript = read_transcript(Path(result["transcriptPath"]))
    start = next(e for e in transcript if e["event"] == "session_start")
    assert start["tests_found_by"].startswith("2 tests execute `mean`, 2 failing (found by running")
    assert all(0 <= (r.percentage or 0) <= 100 for r in middle)
    assert isinstance(reports[-1], WorkDoneProgressEnd)

    # diagnostics from the first run: on the function and on the failing asserts, linked
    failures = [d for d in client.diagnostics[uri] if d.code == "test-failure"]
    suspicious = [d for d in client.diagnostics[uri] if d.code == "suspicious-line"]
    assert suspicious and all(d.severity == 3 for d in suspicious)  # Information (issue 13)
    on_function = failures
    on_tests = client.diagnostics[test_uri]
    assert {d.data["nodeid"] for d in on_function} == {
        "tests/test_calc.py::test_mean_of_two",
        "tests/test_calc.py::test_mean_of_one",
    }
    two = next(d for d in on_function if d.data["nodeid"].endswith("test_mean_of_two"))
    assert two.source == "selfdebug" and two.severity == 1
    assert two.range.start.line == 3  # `def mean`: no frame inside the function
    assert "expected 3" in two.message and "test_mean_of_two" in two.message
    assert two.related_information[0].location.uri == test_uri
    test_two = next(d for d in on_tests if d.data["nodeid"].endswith("test_mean_of_two"))
    assert test_two.range.start.line == 4  # `assert mean([2, 4]) == 3`
    assert test_two.related_information[0].location.uri == uri

    # the fix: one confirmable, versioned edit limited to the function
    (sent,) = client.edits
    (change,) = sent.edit.document_changes
    assert change.text_document.uri == uri and change.text_document.version == 1
    (edit,) = change.edits  # the one changed line of the function (lines 3-6)
    assert edit.range.start.line >= 3 and edit.range.end.line <= 7
    assert "return total / len(values)" in edit.new_text
    annotation = sent.edit.change_annotations[edit.annotation_id]
    assert annotation.needs_confirmation is True
    assert "mean" in annotation.label and "passes 2/2 chosen" in annotation.description
    assert "divided" not in annotation.description  # the model's words are never the prompt
    ws.change(uri, edit.range, edit.new_text)
    assert "return total / len(values)" in ws.texts[uri]
    assert "def clamp" in ws.texts[uri]  # the rest of the file is untouched

    # the report and the command's answer
    (report,) = client.reports
    assert report["success"] is True and report["applied"] is True
    assert (
        report["qualname"] == "mean" and "-    return total / (len(values) + 1)" in report["diff"]
    )
    assert Path(report["reportPath"]).is_file() and "# Self-debug `mean`" in report["markdown"]
    assert Path(report["transcriptPath"]).parent == Path(report["reportPath"]).parent
    assert result["applied"] is True and result["stopReason"] == "passed"
    (shown,) = client.shown_documents  # showReport: the markdown report opens in the editor
    assert shown.uri.endswith("/report.md") and shown.uri == from_fs_path(report["reportPath"])

    # the edit touched the function: its diagnostics go away, in both files
    await client.until(lambda: len(client.diagnostics[uri]) == 0)
    await client.until(lambda: len(client.diagnostics[test_uri]) == 0)


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry.name))
    return found


async def test_cancel_stops_the_session_and_kills_the_tests_within_a_second(start):
    ws = await start(
        script={"replies": [FIX_REPLY]},
        settings={"testSelection": [f"tests/test_settle.py::{CANCEL_MARKER}"], "testTimeout": 120},
    )
    client = ws.client
    uri = ws.open("calc.py")
    session = asyncio.ensure_future(
        ws.command("selfdebug.selfDebug", {"uri": uri, "qualname": "settle"})
    )
    token = await client.until(lambda: client.progress_token_with("running 1 tests"))
    # the test process is up (it sleeps 60 s)
    deadline = time.monotonic() + 30
    while not _processes_with(CANCEL_MARKER):
        assert time.monotonic() < deadline, "the test process never started"
        await asyncio.sleep(0.05)  # polling the OS process table: there is no event to wait for

    cancelled_at = time.monotonic()
    client.window_work_done_progress_cancel(WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(session, 5)
    elapsed = time.monotonic() - cancelled_at
    assert elapsed < 1.0, f"session took {elapsed:.2f}s to stop"
    assert not _processes_with(CANCEL_MARKER), "the test process survived the cancel"
    assert result["stopReason"] == "cancelled"
    assert client.edits == []
    assert isinstance(client.progress_reports[token][-1], WorkDoneProgressEnd)
    # the server is still fine
    assert await ws.actions(uri, 19, 8)


async def test_cancel_while_the_model_is_answering_stops_it_within_a_second(start):
    ws = await start(
        script={"replies": [FIX_REPLY], "delay_s": 60.0}, settings={"maxTurns": 2, "mode": "ut"}
    )
    client = ws.client
    uri = ws.open("calc.py")
    session = asyncio.ensure_future(
        ws.command("selfdebug.selfDebug", {"uri": uri, "qualname": "mean"})
    )
    token = await client.until(lambda: client.progress_token_with("asking the model"))
    cancelled_at = time.monotonic()
    client.window_work_done_progress_cancel(WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(session, 5)
    elapsed = time.monotonic() - cancelled_at
    assert elapsed < 1.0, f"session took {elapsed:.2f}s to stop"
    assert result["stopReason"] == "cancelled" and client.edits == []
    assert client.reports[-1]["stopReason"] == "cancelled"


async def test_cancel_request_on_the_command_stops_the_session_within_a_second(start):
    """`$/cancelRequest` (how eglot and others cancel) must stop the work, not only the reply."""
    ws = await start(
        script={"replies": [FIX_REPLY], "delay_s": 60.0}, settings={"maxTurns": 2, "mode": "ut"}
    )
    client = ws.client
    uri = ws.open("calc.py")
    msg_id = "cancel-me-1"
    session = asyncio.ensure_future(
        client.protocol.send_request_async(
            "workspace/executeCommand",
            ExecuteCommandParams(
                command="selfdebug.selfDebug", arguments=[{"uri": uri, "qualname": "mean"}]
            ),
            msg_id=msg_id,
        )
    )
    await client.until(lambda: client.progress_token_with("asking the model"))
    cancelled_at = time.monotonic()
    client.protocol.notify("$/cancelRequest", CancelParams(id=msg_id))
    report = await client.until(
        lambda: next((r for r in client.reports if r["stopReason"] == "cancelled"), None), 5
    )
    elapsed = time.monotonic() - cancelled_at
    assert elapsed < 1.0, f"session took {elapsed:.2f}s to stop"
    assert report["qualname"] == "mean" and client.edits == []
    with pytest.raises(JsonRpcException) as answered:  # the request itself is cancelled too
        await asyncio.wait_for(session, 5)
    assert answered.value.code == -32800


async def test_stale_fix_is_refused_when_the_document_changed(start):
    ws = await start(
        script={"replies": [FIX_REPLY], "delay_s": 2.0},
        settings={"maxTurns": 1, "mode": "ut"},
    )
    client = ws.client
    uri = ws.open("calc.py")
    session = asyncio.ensure_future(
        ws.command("selfdebug.selfDebug", {"uri": uri, "qualname": "mean", "version": 1})
    )
    # wait until the model is being asked (the tests ran already), then the user types
    await client.until(lambda: client.progress_token_with("turn 1/1"))
    ws.change(uri, Range(Position(line=5, character=4), Position(line=5, character=4)), "# x\n    ")
    result = await asyncio.wait_for(session, 60)
    assert client.edits == []  # nothing was sent: 0 bytes changed
    assert result["applied"] is False and "changed during the session" in result["note"]
    assert any("not applied" in m.message for m in client.messages)


@pytest.mark.parametrize(
    "arguments",
    [
        [],
        [{"uri": 5, "qualname": "mean"}],
        [{"uri": "file:///nowhere.py"}],  # neither qualname nor position
        [{"uri": "file:///nowhere.py", "qualname": "f", "colour": "red"}],
        [{"uri": "file:///x.py", "qualname": "f"}, {"extra": 1}],
        ["file:///x.py"],
    ],
)
async def test_bad_arguments_are_answered_with_an_error_quickly(start, arguments):
    ws = await start()
    started = time.monotonic()
    with pytest.raises(JsonRpcException) as error:
        await asyncio.wait_for(ws.command("selfdebug.selfDebug", *arguments), 1.0)
    assert time.monotonic() - started < 1.0
    assert "-32602" in str(error.value) or "Invalid" in repr(error.value) or error.value


async def test_a_request_with_malformed_lsp_params_still_gets_an_error(start):
    ws = await start()
    uri = ws.open("calc.py")
    # sent raw: the client's own serializer refuses malformed params
    answer: Future[Any] = Future()
    ws.client.protocol._request_futures["malformed-1"] = answer
    ws.client.protocol._send_data(
        JsonRPCRequestMessage(
            id="malformed-1",
            method="textDocument/codeAction",
            params={"textDocument": {"uri": uri}, "range": "line 3"},
            jsonrpc="2.0",
        )
    )
    started = time.monotonic()
    with pytest.raises(JsonRpcException) as error:
        await asyncio.wait_for(asyncio.wrap_future(answer), 1.0)
    assert time.monotonic() - started < 1.0
    assert "invalid params for textDocument/codeAction" in str(error.value)
    assert commands_of(await ws.actions(uri, 3, 6))  # and the server goes on


async def test_missing_function_and_unknown_command_are_errors(start):
    ws = await start()
    uri = ws.open("calc.py")
    for name, argument in [
        ("selfdebug.selfDebug", {"uri": uri, "qualname": "no_such_function"}),
        ("selfdebug.runTests", {"uri": uri, "position": {"line": 0, "character": 0}}),
        ("selfdebug.noSuchCommand", {"uri": uri, "qualname": "mean"}),
    ]:
        with pytest.raises(JsonRpcException):
            await asyncio.wait_for(ws.command(name, argument), 1.0)


async def test_run_tests_by_position_publishes_and_clears(start):
    ws = await start()
    client = ws.client
    uri = ws.open("calc.py")
    result = await ws.command(
        "selfdebug.runTests", {"uri": uri, "position": {"line": 7, "character": 10}}
    )
    assert (result["qualname"], result["passed"], result["total"]) == ("mean", 0, 2)
    assert len(client.diagnostics[uri]) == 2
    # a passing function: clamp's tests pass, nothing published for it
    result = await ws.command("selfdebug.runTests", {"uri": uri, "qualname": "clamp"})
    assert (result["passed"], result["total"]) == (1, 1)
    assert len(client.diagnostics[uri]) == 2  # mean's diagnostics stay
    # an edit outside `mean` keeps them, an edit inside clears them
    ws.change(uri, Range(Position(line=11, character=4), Position(line=11, character=4)), " ")
    ws.change(uri, Range(Position(line=5, character=4), Position(line=5, character=4)), "# x\n    ")
    await client.until(lambda: len(client.diagnostics[uri]) == 0)


async def test_configuration_round_trip_and_invalid_values(start):
    ws = await start(
        initialization_options={"selfdebug": {"mode": "simple"}},
        settings={"mode": "magic"},
    )
    client = ws.client
    ws.open("calc.py")

    folder = ws.uri("")
    client.set_configuration({"mode": "ut", "maxTurns": -1}, section="selfdebug", scope_uri=folder)
    client.workspace_did_change_configuration(DidChangeConfigurationParams(settings=None))
    message = await client.until(
        lambda: next((m for m in client.messages if "maxTurns" in m.message), None)
    )
    assert "default" in message.message
    assert any("maxTurns" in m.message for m in client.log_messages)


async def test_the_mode_setting_is_read_when_the_session_starts(start):
    """The lightbulb's "Self-debug `f`" carries no mode: the session takes the `mode` setting as
    it is when the session starts, so a change made after the action was listed wins. A request
    made at an older version of the document is refused before anything runs."""
    ws = await start(script={"replies": [FIX_REPLY]}, settings={"maxTurns": 1, "mode": "simple"})
    client = ws.client
    uri = ws.open("calc.py")
    action = (await ws.actions(uri, 3, 4))[0]
    assert "mode" not in action.command.arguments[0]

    older = {"uri": uri, "qualname": "mean", "version": 0}
    refused = await ws.command("selfdebug.selfDebug", older)
    assert refused == {
        "started": False,
        "error": "the document changed since the request (version 0 -> 1)",
    }
    assert not client.progress_reports and not client.reports  # nothing ran

    client.set_configuration(
        {"maxTurns": 1, "mode": "ut"}, section="selfdebug", scope_uri=ws.uri("")
    )
    result = await asyncio.wait_for(
        ws.command(action.command.command, *action.command.arguments), 120
    )
    lines = Path(result["transcriptPath"]).read_text(encoding="utf-8").splitlines()
    (chosen,) = [event for event in map(json.loads, lines) if event["event"] == "mode"]
    assert (chosen["requested"], chosen["mode"]) == ("ut", "ut")


async def test_run_on_save_reruns_the_tests_of_a_function(start):
    ws = await start(settings={"runOnSave": True})
    client = ws.client
    uri = ws.open("calc.py")
    # learn the settings (a command fetches them) and publish mean's failures
    await ws.command("selfdebug.runTests", {"uri": uri, "qualname": "mean"})
    assert len(client.diagnostics[uri]) == 2
    ws.change(uri, Range(Position(line=5, character=4), Position(line=5, character=4)), "# x\n    ")
    await client.until(lambda: len(client.diagnostics[uri]) == 0)
    client.text_document_did_save(DidSaveTextDocumentParams(TextDocumentIdentifier(uri=uri)))
    # the save re-runs mean's tests (on the editor's text) and the failures come back
    await client.until(lambda: len(client.diagnostics[uri]) == 2, timeout=60)
    assert all(d.range.start.line == 3 for d in client.diagnostics[uri])


@pytest.mark.model
async def test_real_embedded_model_session_ends_cleanly(start):
    """No script: the server runs the small Gemma 3 270M (by name) in its model worker, one turn."""
    pytest.importorskip("llama_cpp")
    settings = {"backend": "llama", "modelPath": "gemma-3-270m", "maxTurns": 1, "mode": "ut"}
    ws = await start(settings=settings)
    client = ws.client
    uri = ws.open("calc.py")
    result = await asyncio.wait_for(
        ws.command("selfdebug.selfDebug", {"uri": uri, "qualname": "mean"}), 600
    )
    (report,) = client.reports
    assert report["qualname"] == "mean"
    assert report["stopReason"] in {"passed", "max_turns", "no_improvement", "error"}
    assert report["stopReason"] != "error" or report["note"], report
    assert result["stopReason"] == report["stopReason"]
    assert "failed" not in " ".join(m.message for m in client.messages), client.messages
    (reports,) = client.progress_reports.values()
    assert isinstance(reports[-1], WorkDoneProgressEnd)
    if report["success"]:  # a fix from a 270M model is a bonus, but then it must be delivered
        assert len(client.edits) == 1 and report["applied"] is True
    assert await ws.actions(uri, 3, 6)  # still serving


def apply_lsp_edits(text: str, edits: list[dict[str, Any]]) -> str:
    """Apply a TextDocumentEdit's JSON edits (non-overlapping) from the last to the first."""
    ordered = sorted(
        edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"])
    )
    for edit in reversed(ordered):
        r = edit["range"]
        range_ = Range(
            Position(line=r["start"]["line"], character=r["start"]["character"]),
            Position(line=r["end"]["line"], character=r["end"]["character"]),
        )
        text = splice(text, range_, edit["newText"])
    return text


async def test_propose_fix_answers_with_the_edit_and_applies_nothing(start):
    """`selfdebug.proposeFix`: the same session, the fix comes back in the answer (for a diff
    preview in the editor) with its evidence and explanation; no workspace/applyEdit is sent."""
    ws = await start(
        script={"replies": [FIX_REPLY], "prompt_form": "chat"},
        settings={"maxTurns": 2, "mode": "ut"},
    )
    client = ws.client
    uri = ws.open("calc.py")
    result = await asyncio.wait_for(
        ws.command("selfdebug.proposeFix", {"uri": uri, "qualname": "mean", "version": 1}), 120
    )
    assert client.edits == []  # nothing applied: the client decides
    proposal = result["proposal"]
    assert proposal["uri"] == uri and proposal["version"] == 1 and proposal["qualname"] == "mean"
    assert proposal["evidence"].startswith("passes 2/2 chosen") and result["evidence"]
    assert "divided by one more" in proposal["explanation"]
    assert proposal["staleReason"] is None
    assert proposal["original"] == ws.texts[uri]
    assert proposal["functionLines"] == [3, 8]  # `def mean` to its `return`
    fixed = ws.texts[uri].replace("(len(values) + 1)", "len(values)")
    assert proposal["proposed"] == fixed
    # the edit is the one selfDebug would send (versioned, annotated), and it yields `proposed`
    (change,) = proposal["edit"]["documentChanges"]
    assert change["textDocument"] == {"uri": uri, "version": 1}
    annotations = proposal["edit"]["changeAnnotations"]
    assert all(annotations[e["annotationId"]]["needsConfirmation"] for e in change["edits"])
    assert apply_lsp_edits(ws.texts[uri], change["edits"]) == fixed
    # the session report says it was proposed, not applied
    (report,) = client.reports
    assert report["applied"] is None and "proposed for review" in report["note"]
    assert result["success"] is True and result["stopReason"] == "passed"
    # progress names the turn and the mode's step
    messages = client.progress_messages()
    step = "turn 1/2, ut mode: asking the model for a fix from the test results"
    assert step in messages, messages
    # the diagnostic's hover lines: got/expected (summary) and the call's inputs
    two = next(d for d in client.diagnostics[uri] if d.data["nodeid"].endswith("test_mean_of_two"))
    assert two.message.splitlines()[0].endswith("got 2.0, expected 3"), two.message
    assert "inputs: mean([2, 4])" in two.message.splitlines(), two.message


async def test_propose_fix_marks_a_proposal_whose_document_moved_on(start):
    ws = await start(
        script={"replies": [FIX_REPLY], "delay_s": 2.0},
        settings={"maxTurns": 1, "mode": "ut"},
    )
    client = ws.client
    uri = ws.open("calc.py")
    session = asyncio.ensure_future(
        ws.command("selfdebug.proposeFix", {"uri": uri, "qualname": "mean", "version": 1})
    )
    await client.until(lambda: client.progress_token_with("turn 1/1"))
    ws.change(uri, Range(Position(line=5, character=4), Position(line=5, character=4)), "# x\n    ")
    result = await asyncio.wait_for(session, 60)
    assert client.edits == []
    proposal = result["proposal"]
    assert proposal["version"] == 1  # the text the session saw, which the diff shows
    assert "changed during the session (version 1 -> 2)" in proposal["staleReason"]
    assert "# x" not in proposal["original"]


async def test_propose_fix_without_a_fix_answers_a_null_proposal(start):
    ws = await start(
        script={"replies": ["I do not know.\n"]}, settings={"maxTurns": 1, "mode": "ut"}
    )
    uri = ws.open("calc.py")
    result = await asyncio.wait_for(
        ws.command("selfdebug.proposeFix", {"uri": uri, "qualname": "mean"}), 120
    )
    assert result["proposal"] is None and result["success"] is False
    assert ws.client.edits == []
