"""Start llama-cpp-python's own OpenAI-compatible server on 127.0.0.1 for tests.

Why: the endpoint backend must be tested against a real OpenAI-compatible server, not a mock.
The server runs in its own process group so that stopping it also stops anything it spawned,
and it is stopped even when the test fails.

    from helpers.llama_server import running_llama_server, embedded_gguf
    with running_llama_server(embedded_gguf(), chat_format="gemma") as server:
        ... server.base_url ...  # "http://127.0.0.1:PORT/v1"
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass
class LlamaServer:
    process: subprocess.Popen
    port: int
    log_path: Path
    api_key: str | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def log_tail(self, chars: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM the whole process group, then SIGKILL what is left after 10 s."""
        if self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def embedded_gguf() -> Path:
    """The small Gemma 3 270M GGUF the suite's fast real-model tests use (assembled quietly)."""
    from selfdebug.server.backends.assemble import model_path
    from selfdebug.server.backends.models import GEMMA_270M

    return model_path(GEMMA_270M, notice=None, progress=None)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_llama_server(
    model_path: str | Path,
    *,
    chat_format: str | None = None,
    api_key: str | None = None,
    n_ctx: int = 2048,
    startup_timeout_s: float = 180.0,
) -> LlamaServer:
    """Start the server and wait until /v1/models answers; raise with the log tail if not."""
    port = free_port()
    descriptor, log_name = tempfile.mkstemp(prefix="llama-server-", suffix=".log")
    os.close(descriptor)
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model_path),
        "--host", "127.0.0.1",
        "--port", str(port),
        "--n_ctx", str(n_ctx),
        "--verbose", "False",
    ]  # fmt: skip
    if chat_format:
        command += ["--chat_format", chat_format]
    if api_key:
        command += ["--api_key", api_key]
    with open(log_name, "wb") as log_file:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stop() signals the group
        )
    server = LlamaServer(process, port, Path(log_name), api_key)
    try:
        _wait_ready(server, startup_timeout_s)
    except BaseException:
        server.stop()
        raise
    return server


def _wait_ready(server: LlamaServer, timeout_s: float) -> None:
    request = urllib.request.Request(f"{server.base_url}/models")
    if server.api_key:
        request.add_header("Authorization", f"Bearer {server.api_key}")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited early:\n{server.log_tail()}")
        try:
            with urllib.request.urlopen(request, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.25)
    raise TimeoutError(f"llama_cpp.server not ready after {timeout_s:g} s:\n{server.log_tail()}")


@contextlib.contextmanager
def running_llama_server(model_path: str | Path, **options) -> Iterator[LlamaServer]:
    server = start_llama_server(model_path, **options)
    try:
        yield server
    finally:
        server.stop()
        with contextlib.suppress(OSError):
            server.log_path.unlink()
