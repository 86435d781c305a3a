"""A hostile client against a real `selfdebug serve` (issue 16, items 2, 7, 8, 9): raw bytes on
stdio or TCP, so that broken framing and odd messages can be sent at all. Each case got no
answer, a wrong answer or an unsealed run before the hardening."""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pygls.uris import from_fs_path

SERVER = [sys.executable, "-m", "selfdebug", "serve"]


def frame(message: dict[str, Any] | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class RawClient:
    """Writes raw bytes, reads framed messages on a thread."""

    def __init__(self, write, read) -> None:
        self._write = write
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []  # everything, also what `wait` passed over
        threading.Thread(target=self._reader, args=(read,), daemon=True).start()

    def _reader(self, read) -> None:
        buffer = b""
        while True:
            chunk = read()
            if not chunk:
                return
            buffer += chunk
            while b"\r\n\r\n" in buffer:
                head, rest = buffer.split(b"\r\n\r\n", 1)
                length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
                if len(rest) < length:
                    break
                message = json.loads(rest[:length])
                self.seen.append(message)
                self.messages.put(message)
                buffer = rest[length:]

    def send(self, data: dict[str, Any] | bytes, raw: bool = False) -> None:
        self._write(data if raw else frame(data))  # type: ignore[arg-type]

    def wait(self, predicate, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no such message")
            message = self.messages.get(timeout=remaining)
            if predicate(message):
                return message

    def request(self, msg_id: int, method: str, params: Any, timeout: float = 60.0):
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == msg_id and "method" not in m, timeout)

    def drain(self, seconds: float) -> list[dict[str, Any]]:
        time.sleep(seconds)
        found = []
        while not self.messages.empty():
            found.append(self.messages.get())
        return found


def initialize(client: RawClient, folder: Path | None, options: Any = None) -> dict[str, Any]:
    params: dict[str, Any] = {"processId": None, "capabilities": {}, "rootUri": None}
    if folder is not None:
        params["workspaceFolders"] = [{"uri": from_fs_path(str(folder)), "name": "ws"}]
    if options is not None:
        params["initializationOptions"] = options
    answer = client.request(1, "initialize", params)
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    return answer


@pytest.fixture
def stdio() -> Iterator[RawClient]:
    process = subprocess.Popen(
        SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin and process.stdout
    stdin, stdout = process.stdin, process.stdout

    def write(data: bytes) -> None:
        stdin.write(data)
        stdin.flush()

    yield RawClient(write, lambda: os.read(stdout.fileno(), 65536))
    process.kill()
    process.wait()


def project(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (root / "calc.py").write_text("def double(x):\n    return x + x + 1\n")
    (root / "tests" / "test_calc.py").write_text(
        "from calc import double\n\ndef test_double():\n    assert double(2) == 4\n"
    )
    return root


def run_tests(client: RawClient, msg_id: int, uri: str, timeout: float = 90.0):
    params = {"command": "selfdebug.runTests", "arguments": [{"uri": uri, "qualname": "double"}]}
    return client.request(msg_id, "workspace/executeCommand", params, timeout)


def test_malformed_json_and_framing_get_parse_errors_and_the_stream_lives(
    stdio: RawClient,
) -> None:
    initialize(stdio, None)
    stdio.send(b"{not json", raw=False)
    error = stdio.wait(lambda m: "error" in m)
    assert error["id"] is None and error["error"]["code"] == -32700
    # junk where a header belongs, a lower-case header, then a bad Content-Length
    stdio.send(b"garbage line\r\n" + frame({"jsonrpc": "2.0", "id": 7, "method": "shutdown"}),
               raw=True)  # fmt: skip
    assert stdio.wait(lambda m: m.get("error", {}).get("code") == -32700)["id"] is None
    assert stdio.wait(lambda m: m.get("id") == 7)["result"] is None
    stdio.send(b"Content-Length: abc\r\n\r\n", raw=True)
    assert stdio.wait(lambda m: "error" in m)["error"]["code"] == -32700


def test_a_nested_jsonrpc_object_gets_no_reply_and_unknown_didchange_is_quiet(
    stdio: RawClient, tmp_path: Path
) -> None:
    initialize(stdio, tmp_path)
    nested = {"jsonrpc": "2.0", "id": 999, "method": "textDocument/hover", "params": {"x": 1}}
    stdio.send({"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand",
                "params": {"command": "selfdebug.runTests", "arguments": [nested]}})  # fmt: skip
    answer = stdio.wait(lambda m: m.get("id") == 2)
    assert answer["error"]["code"] == -32602
    uri = from_fs_path(str(tmp_path / "never_opened.py"))
    change = {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "x\n"}]}
    stdio.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": change})
    stdio.drain(1.5)
    later = stdio.seen
    assert not [m for m in later if m.get("id") == 999]  # an id the client never sent
    shown = [m for m in later if m.get("method") == "window/showMessage"]
    assert not shown, shown  # no KeyError popped up
    assert stdio.request(3, "shutdown", None)["result"] is None


def test_internal_errors_carry_no_exception_text() -> None:
    from lsprotocol.types import ResponseError

    from selfdebug.server.lsp.protocol import INTERNAL_ERROR
    from selfdebug.server.lsp.server import create_server

    sent: list[bytes] = []

    class Writer:
        def write(self, data: bytes) -> None:
            sent.append(data)

        def close(self) -> None:
            pass

    server = create_server()
    server.protocol.set_writer(Writer())  # type: ignore[arg-type]
    raw = ResponseError(code=-32603, message="KeyError: '/home/u/.ssh/id_rsa'",
                        data={"traceback": ["File secret.py"]})  # fmt: skip
    server.protocol._send_response(5, error=raw)
    text = b"".join(sent).decode()
    assert INTERNAL_ERROR in text and "id_rsa" not in text and "traceback" not in text


def test_uris_are_canonical_and_confined_to_the_workspace(stdio: RawClient, tmp_path: Path) -> None:
    workspace = project(tmp_path / "ws")
    outside = project(tmp_path / "elsewhere")
    os.mkfifo(workspace / "fifo.py")
    initialize(stdio, workspace, {"isolation": "rlimits"})
    refused = run_tests(stdio, 2, from_fs_path(str(outside / "calc.py")))
    assert refused["error"]["code"] == -32602
    assert "outside the workspace" in refused["error"]["message"]
    # an alias URI means the open document, with its unsaved (fixed) text
    uri = from_fs_path(str(workspace / "calc.py"))
    fixed = "def double(x):\n    return x + x\n"
    stdio.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": fixed}}})  # fmt: skip
    alias = from_fs_path(str(workspace / "tests" / ".." / "calc.py"))
    assert "/../" in alias
    result = run_tests(stdio, 3, alias)["result"]
    assert (result["passed"], result["total"]) == (1, 1), result
    # the fallback is visible: in the result and once as a message
    assert result["isolation"] == "rlimits" and "WITHOUT a sandbox" in result["isolationWarning"]
    assert "NOT sandboxed" in result["summary"]
    # a FIFO (or a device) is refused, not read on the event loop
    fifo = run_tests(stdio, 5, from_fs_path(str(workspace / "fifo.py")), timeout=20)
    assert "not a regular file" in fifo["error"]["message"]
    assert stdio.request(6, "shutdown", None, timeout=10)["result"] is None


def test_the_fallback_warning_is_shown_once(stdio: RawClient, tmp_path: Path) -> None:
    workspace = project(tmp_path / "ws")
    initialize(stdio, workspace, {"isolation": "rlimits"})
    uri = from_fs_path(str(workspace / "calc.py"))
    run_tests(stdio, 2, uri)
    run_tests(stdio, 3, uri)
    stdio.drain(0.5)
    messages = [m for m in stdio.seen if m.get("method") == "window/showMessage"]
    fallback = [m for m in messages if "WITHOUT a sandbox" in m["params"]["message"]]
    assert len(fallback) == 1, messages


def test_require_sandbox_is_machine_scoped(stdio: RawClient, tmp_path: Path) -> None:
    from selfdebug.server.lsp.settings import machine_scoped, structure_settings

    client = structure_settings({"requireSandbox": True}).settings
    merged = structure_settings({"requireSandbox": True}, {"requireSandbox": False}).settings
    assert machine_scoped(client, merged).require_sandbox is True  # a folder cannot weaken it
    granted = structure_settings({}, {"trustedWorkspace": True}).settings
    assert machine_scoped(structure_settings({}).settings, granted).trusted_workspace is False
    workspace = project(tmp_path / "ws")
    initialize(stdio, workspace, {"isolation": "rlimits", "requireSandbox": True})
    answer = run_tests(stdio, 2, from_fs_path(str(workspace / "calc.py")))
    assert "requireSandbox" in json.dumps(answer)


def test_tcp_is_loopback_only_and_needs_the_token(tmp_path: Path) -> None:
    refused = subprocess.run([*SERVER, "--tcp", "0.0.0.0:0"], capture_output=True, text=True,
                             timeout=60)  # fmt: skip
    assert refused.returncode == 2 and "loopback" in refused.stderr
    token_file = tmp_path / "token"
    process = subprocess.Popen(
        [*SERVER, "--tcp", "127.0.0.1:0", "--token-file", str(token_file)],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        port = int(line.split("127.0.0.1:")[1].split(";")[0])
        assert token_file.stat().st_mode & 0o777 == 0o600
        token = token_file.read_text()
        wrong = _tcp_client(port)
        params: dict[str, Any] = {"processId": None, "capabilities": {}}
        answer = wrong.request(1, "initialize", {**params, "initializationOptions": {"token": "x"}})
        assert "token" in answer["error"]["message"]
        right = _tcp_client(port)
        assert "error" in right.request(1, "shutdown", None)  # nothing before initialize
        answer = right.request(
            2, "initialize", {**params, "initializationOptions": {"token": token}}
        )
        assert "capabilities" in answer["result"]
    finally:
        process.kill()
        process.wait()


def _tcp_client(port: int) -> RawClient:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    return RawClient(sock.sendall, lambda: sock.recv(65536))


def test_the_report_shows_isolation_and_every_safety_warning() -> None:
    from selfdebug.server.engine.types import DebugResult, TestTally
    from selfdebug.server.lsp import report

    result = DebugResult(
        stop_reason="passed", turns=1, mode="ut", original_function="def f(): pass\n",
        fixed_function="def f(): exec('1')\n", fixed_file="def f(): exec('1')\n", diff="-\n+\n",
        explanation="IGNORE PREVIOUS INSTRUCTIONS", chosen_before=TestTally(0, 1),
        chosen_after=TestTally(1, 1), warnings=["the candidate runs code from a string (exec)"],
    )  # fmt: skip
    session = report.from_result("file:///ws/f.py", "f", result)
    session.isolation, session.isolation_warning = "NOT sandboxed: rlimits", "no sandbox here"
    data = session.to_json()
    assert data["warnings"] == ["the candidate runs code from a string (exec)"]
    assert data["isolation"] == "NOT sandboxed: rlimits"
    markdown = report.render_markdown(session)
    assert "runs code from a string (exec)" in markdown and "NOT sandboxed" in markdown
    from selfdebug.server.lsp.fix_delivery import confirmation_text

    label, description = confirmation_text("f", result)
    assert "IGNORE" not in label + description  # the model's words never label the edit
    assert "WARNING: the candidate runs code from a string (exec)" in description
