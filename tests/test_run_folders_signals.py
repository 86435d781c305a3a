"""A run ends tidily however its process is ended: real `selfdebug` processes, real signals, a
tiny project whose test sleeps (so a run is surely on when the signal comes).

- `selfdebug fix` (a function, or from the failing test) and `selfdebug test` stopped by SIGTERM
  or SIGHUP cancel the run, leave no run folder and no test process, and exit 128 + the signal;
- the server stopped by SIGTERM, or whose input closes, does the same within seconds;
- a server killed with -9 leaves its folder (and, without bubblewrap, its test process), and the
  next server's start removes both.

Every run folder lives in SELFDEBUG_RUNS_DIR, pointed at the test's own folder.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import pytest_asyncio
from helpers.processes import running
from lsprotocol.types import (
    DidOpenTextDocumentParams,
    ExecuteCommandParams,
    InitializeParams,
    TextDocumentItem,
    WorkspaceFolder,
)
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

SELFDEBUG = [sys.executable, "-m", "selfdebug"]
CALC = "def add(a, b):\n    return a - b\n"
SLOW_TEST = """\
import os
import time

from calc import add


def test_add():
    with open("started", "w") as handle:  # in the shadow copy: the test runs now
        handle.write(str(os.getpid()))
    time.sleep(60)
    assert add(1, 2) == 3
"""
TEST_ID = "test_calc.py::test_add"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'calc'\n", encoding="utf-8")
    (root / "calc.py").write_text(CALC, encoding="utf-8")
    (root / "test_calc.py").write_text(SLOW_TEST, encoding="utf-8")
    return root


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    return tmp_path / "runs"


def environment(tmp_path: Path, runs: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELFDEBUG_")}
    env["SELFDEBUG_RUNS_DIR"] = str(runs)
    env["SELFDEBUG_CACHE_DIR"] = str(tmp_path / "cache")
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def wait_for_the_test(runs: Path, alive: Callable[[], bool], timeout_s: float = 60) -> int:
    """The pid of the slow test once it runs in a shadow copy under `runs`. Polls the file
    system: nothing announces a test process starting."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for started in runs.glob("*/shadow/*/started"):
            text = started.read_text(encoding="utf-8")
            if text:
                return int(text)
        assert alive(), "selfdebug ended before the test started"
        time.sleep(0.05)
    raise AssertionError("the slow test never started")


def folders(runs: Path) -> list[Path]:
    return sorted(runs.iterdir()) if runs.exists() else []


@pytest.mark.parametrize(
    ("command", "signum"),
    [
        (["fix", "calc.py::add", "--test", TEST_ID, "--mode", "search"], signal.SIGTERM),
        (["fix", "--test", TEST_ID, "--mode", "search"], signal.SIGTERM),  # from the failure
        (["test", "calc.py::add", "--test", TEST_ID], signal.SIGHUP),
    ],
    ids=["fix-sigterm", "fix-from-failure-sigterm", "test-sighup"],
)
def test_a_signal_ends_the_cli_run_like_ctrl_c(
    project: Path, runs: Path, tmp_path: Path, command: list[str], signum: int
) -> None:
    process = subprocess.Popen(
        [*SELFDEBUG, *command, "--isolation", "rlimits"],
        cwd=project,
        env=environment(tmp_path, runs),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        test_pid = wait_for_the_test(runs, lambda: process.poll() is None)
        assert folders(runs)
        process.send_signal(signum)
        output, _ = process.communicate(timeout=20)
    finally:
        process.kill()
    assert process.returncode == 128 + signum, output.decode(errors="replace")
    assert folders(runs) == []
    assert not running(test_pid)


# -- the server ------------------------------------------------------------------------------


class Server:
    """A real `selfdebug serve` over stdio (pytest-lsp's client) and its process."""

    def __init__(self, client: LanguageClient, project: Path) -> None:
        self.client = client
        self.project = project

    @property
    def process(self) -> asyncio.subprocess.Process:
        process = self.client._server  # pygls' JsonRPCClient keeps the server it started here
        assert isinstance(process, asyncio.subprocess.Process)
        return process

    def run_the_tests(self) -> asyncio.Future[object]:
        """`selfdebug.runTests` on `add`, left running (its test sleeps)."""
        uri = from_fs_path(str(self.project / "calc.py")) or ""
        self.client.text_document_did_open(
            DidOpenTextDocumentParams(TextDocumentItem(uri, "python", 1, CALC))
        )
        return asyncio.ensure_future(
            self.client.workspace_execute_command_async(
                ExecuteCommandParams("selfdebug.runTests", [{"uri": uri, "qualname": "add"}])
            )
        )

    async def exit_code(self, timeout_s: float) -> int:
        return await asyncio.wait_for(self.process.wait(), timeout_s)


@pytest_asyncio.fixture
async def serve(project: Path, runs: Path, tmp_path: Path) -> AsyncIterator[Callable[..., object]]:
    started: list[LanguageClient] = []

    async def start() -> Server:
        config = ClientServerConfig(
            server_command=[*SELFDEBUG, "serve"], server_env=environment(tmp_path, runs)
        )
        client = await config.start()
        started.append(client)
        folder = from_fs_path(str(project)) or ""
        client.set_configuration(
            {"testSelection": [TEST_ID], "isolation": "rlimits", "testTimeout": 120},
            section="selfdebug",
            scope_uri=folder,
        )
        await client.initialize_session(
            InitializeParams(
                capabilities=pytest_lsp_capabilities(),
                workspace_folders=[WorkspaceFolder(uri=folder, name="project")],
            )
        )
        return Server(client, project)

    yield start
    for client in started:
        process = client._server
        if isinstance(process, asyncio.subprocess.Process) and process.returncode is None:
            process.kill()
            await process.wait()
        await client.stop()


def pytest_lsp_capabilities():  # type: ignore[no-untyped-def]
    from pytest_lsp import client_capabilities

    return client_capabilities("visual-studio-code")


async def test_the_server_stops_within_seconds_when_its_input_closes(
    serve: Callable[..., object], runs: Path
) -> None:
    server = await serve()  # type: ignore[misc]
    server.run_the_tests()
    test_pid = await asyncio.to_thread(wait_for_the_test, runs, lambda: True)
    closed_at = time.monotonic()
    server.process.stdin.close()  # the editor went away
    assert await server.exit_code(10) == 0
    assert time.monotonic() - closed_at < 5
    assert folders(runs) == []
    assert not running(test_pid)


async def test_sigterm_stops_the_server_and_its_run(
    serve: Callable[..., object], runs: Path
) -> None:
    server = await serve()  # type: ignore[misc]
    server.run_the_tests()
    test_pid = await asyncio.to_thread(wait_for_the_test, runs, lambda: True)
    server.process.send_signal(signal.SIGTERM)
    assert await server.exit_code(10) == 128 + signal.SIGTERM
    assert folders(runs) == []
    assert not running(test_pid)


async def test_the_next_server_removes_what_a_server_killed_with_9_left(
    serve: Callable[..., object], runs: Path
) -> None:
    killed = await serve()  # type: ignore[misc]
    killed.run_the_tests()
    test_pid = await asyncio.to_thread(wait_for_the_test, runs, lambda: True)
    killed.process.kill()
    await killed.exit_code(10)
    left = folders(runs)
    assert left, "kill -9 left nothing: this test would prove nothing"

    await serve()  # type: ignore[misc]
    assert folders(runs) == []  # removed at its start, before it answered `initialize`
    assert not running(test_pid)
