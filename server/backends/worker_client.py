"""The server's (or CLI's) side of a model worker: start it, talk to it, notice when it dies.

Why: see model_worker.py. One worker per distinct `WorkerParams` per process, shared by every
backend instance that asks for the same model, because one llama.cpp context across the turns of a
session (and across sessions) is what makes prefix (KV) reuse work. A worker that crashed is
replaced by a fresh one on the next call; a worker idle for `keep_alive_s` is stopped to give its
memory back, and started again when needed.
"""

from __future__ import annotations

import atexit
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from selfdebug.server.backends.base import (
    BackendCancelled,
    BackendError,
    BackendStalled,
    BackendStartFailed,
    BackendTimeout,
    Completion,
    CompletionRequest,
    ProgressSink,
)
from selfdebug.server.backends.binding import reinstall_command
from selfdebug.server.backends.worker_protocol import (
    WORKER_COMMAND,
    WorkerParams,
    completion_from,
    decode,
    encode,
    error_from,
    progress_from,
    request_message,
)
from selfdebug.server.cancel import CancelToken

DEFAULT_KEEP_ALIVE_S = 300.0
# Past its own deadline or stall limit a healthy worker answers within a token (its own guard
# stops the call), and while it computes it reports every second (guard.TICK_REPORT_S); this
# much later (at most the stall limit again) it is stuck, a frozen process, and killed.
STUCK_MARGIN_S = 10.0
# A call's first message comes once the model is loaded (the first call of a process loads it).
LOAD_ALLOWANCE_S = 300.0
# A cancelled call answers within a token or graph node; a worker silent this long after the
# cancel is killed, so that cancel always returns within about a second.
CANCEL_GRACE_S = 0.75
STOP_GRACE_S = 2.0


class WorkerDied(BackendError):
    """The model process ended while a call was in flight (crash, abort, OOM kill)."""


class WorkerDiedAtStart(WorkerDied, BackendStartFailed):
    """... before that process had answered any call: the model cannot start here."""


def worker_command(params: WorkerParams, reply_fd: int) -> list[str]:
    """`python -m selfdebug model-worker ...`: `ps` shows `selfdebug` and `model-worker`."""
    return [
        sys.executable,
        "-m",
        "selfdebug",
        WORKER_COMMAND,
        "--reply-fd",
        str(reply_fd),
        "--params",
        params.to_json(),
    ]


def death_message(returncode: int | None, stderr_tail: str, while_doing: str) -> str:
    """What the user reads when the worker died: how, and what to do about it."""
    if returncode is not None and returncode < 0:
        number = -returncode
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = "unknown"
        how = f"signal {number}, {name}"
    else:
        how = f"exit code {returncode}"
    message = f"the local model process died ({how}) {while_doing}"
    if returncode in (-signal.SIGSEGV, -signal.SIGILL, -signal.SIGBUS, -signal.SIGABRT):
        message += (
            ". llama.cpp crashed: this usually means llama-cpp-python was built for another CPU "
            "(for example a -march=native build on a CPU with Intel AMX). Rebuild it with: "
            + reinstall_command()
            + " ; `selfdebug doctor` checks the build"
        )
    elif returncode == -signal.SIGKILL:
        message += (
            ". It was killed (often the system's out-of-memory killer): try a smaller model "
            "(`selfdebug models`) or a smaller context"
        )
    message += ". The next request starts a fresh model process."
    if stderr_tail:
        message += f" Its last output: {stderr_tail}"
    return message


class ModelWorker:
    """One worker process for one `WorkerParams`; calls are serialised (one llama.cpp context)."""

    def __init__(self, params: WorkerParams, keep_alive_s: float = DEFAULT_KEEP_ALIVE_S) -> None:
        self.params = params
        self.keep_alive_s = keep_alive_s
        self._call_lock = threading.Lock()  # one call at a time
        self._state_lock = threading.Lock()  # start/stop vs the idle timer
        self._process: subprocess.Popen[bytes] | None = None
        self._replies: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._stderr_path: Path | None = None
        self._next_id = 0
        self._idle_timer: threading.Timer | None = None
        self._last_used = time.monotonic()
        self.starts = 0  # how many processes this worker has started (tests, diagnostics)
        self._answered = False  # the running process has answered a call

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    # -- calls ---------------------------------------------------------------------------------

    def complete(
        self,
        request: CompletionRequest,
        cancel: CancelToken | None = None,
        on_text: Callable[[str], None] | None = None,
        on_progress: ProgressSink | None = None,
    ) -> Completion:
        reply = self._call(
            lambda call_id: request_message(call_id, request, stream=on_text is not None),
            deadline_s=request.deadline_s,
            stall_s=request.stall_s,
            cancel=cancel,
            on_text=on_text,
            on_progress=on_progress,
            while_doing="during a model call",
        )
        return completion_from(reply["completion"])

    def op(
        self,
        name: str,
        deadline_s: float = 300.0,
        cancel: CancelToken | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        """A request without streamed text: "info" (build and model facts), "reset" (forget
        the KV prefix), "count_tokens" (text=...), "score_infill" (prefix=, suffix=, texts=)."""
        return self._call(
            lambda call_id: {"op": name, "id": call_id, **fields},
            deadline_s=deadline_s,
            cancel=cancel,
            on_text=None,
            while_doing=f"while answering {name!r}",
        )

    def _call(
        self,
        message_for: Callable[[int], dict[str, Any]],
        *,
        deadline_s: float | None,
        stall_s: float | None = None,
        cancel: CancelToken | None,
        on_text: Callable[[str], None] | None,
        on_progress: ProgressSink | None = None,
        while_doing: str,
    ) -> dict[str, Any]:
        started = time.monotonic()
        while not self._call_lock.acquire(timeout=0.05):  # another call holds the model
            _raise_if_cancelled(cancel)
        try:
            _raise_if_cancelled(cancel)
            process = self._ensure_started()
            self._next_id += 1
            call_id = self._next_id
            self._send(process, message_for(call_id))
            cancelled_at: float | None = None
            heard: float | None = None  # when this call's last message came
            while True:
                now = time.monotonic()
                if cancel is not None and cancel.cancelled and cancelled_at is None:
                    self._send(process, {"op": "cancel", "id": call_id})
                    cancelled_at = now
                stuck = _stuck(now, started, heard, deadline_s, stall_s)
                if cancelled_at is not None and now - cancelled_at > CANCEL_GRACE_S:
                    stuck = BackendCancelled(
                        "the local model call was cancelled; its process did not stop at once "
                        "and was stopped (the next request starts a fresh one)"
                    )
                if stuck is not None:
                    self._stop(kill=True)
                    raise stuck
                try:
                    reply = self._replies.get(timeout=0.05)
                except queue.Empty:
                    continue
                if reply is None:  # the reply pipe closed: the process is gone
                    died = WorkerDied if self._answered else WorkerDiedAtStart
                    raise died(self._death(while_doing))
                if reply.get("id") != call_id:
                    continue  # a late answer to an earlier, abandoned call
                heard = time.monotonic()
                event = reply.get("event")
                if event == "text":
                    if on_text is not None:
                        on_text(str(reply.get("text", "")))
                    continue
                if event == "progress":
                    if on_progress is not None:
                        on_progress(progress_from(reply))
                    continue
                self._answered = True
                if event == "error":
                    raise error_from(reply)
                return reply
        finally:
            self._last_used = time.monotonic()
            self._call_lock.release()
            self._schedule_idle_stop()

    # -- process life --------------------------------------------------------------------------

    def _ensure_started(self) -> subprocess.Popen[bytes]:
        with self._state_lock:
            process = self._process
            if process is not None and process.poll() is None:
                return process
            self._cleanup_locked()
            read_fd, write_fd = os.pipe()
            log_fd, log_name = tempfile.mkstemp(prefix="selfdebug-model-worker-", suffix=".log")
            self._stderr_path = Path(log_name)
            try:
                process = subprocess.Popen(
                    worker_command(self.params, write_fd),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=log_fd,
                    pass_fds=(write_fd,),
                    close_fds=True,
                )
            finally:
                os.close(write_fd)
                os.close(log_fd)
            self._process = process
            self._replies = queue.Queue()
            self.starts += 1
            self._answered = False
            reader = threading.Thread(
                target=_read_replies,
                args=(os.fdopen(read_fd, "rb"), self._replies),
                name="model-worker-replies",
                daemon=True,
            )
            reader.start()
            return process

    def _send(self, process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
        stdin = process.stdin
        try:
            assert stdin is not None
            stdin.write(encode(message))
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # it died: the reply reader reports that with the exit status

    def _death(self, while_doing: str) -> str:
        process = self._process
        returncode = None
        if process is not None:
            try:
                returncode = process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                returncode = process.wait()
        tail = self._stderr_tail()
        with self._state_lock:
            self._cleanup_locked()
        return death_message(returncode, tail, while_doing)

    def _stderr_tail(self, lines: int = 3) -> str:
        if self._stderr_path is None:
            return ""
        try:
            text = self._stderr_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        kept = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
        return " | ".join(kept)[-600:]

    def _schedule_idle_stop(self) -> None:
        if self.keep_alive_s <= 0:
            self._stop()
            return
        with self._state_lock:
            if self._idle_timer is not None:
                self._idle_timer.cancel()
            self._idle_timer = threading.Timer(self.keep_alive_s + 0.05, self._stop_if_idle)
            self._idle_timer.daemon = True
            self._idle_timer.start()

    def _stop_if_idle(self) -> None:
        if not self._call_lock.acquire(blocking=False):
            return  # a call is running: it reschedules when it ends
        try:
            if time.monotonic() - self._last_used >= self.keep_alive_s:
                self._stop()
        finally:
            self._call_lock.release()

    def close(self) -> None:
        """Stop the process (the next call would start a fresh one)."""
        with self._state_lock:
            if self._idle_timer is not None:
                self._idle_timer.cancel()
                self._idle_timer = None
        self._stop()

    def _stop(self, kill: bool = False) -> None:
        with self._state_lock:
            process = self._process
            if process is not None and process.poll() is None:
                if not kill and process.stdin is not None:
                    try:
                        process.stdin.close()  # end of requests: it exits by itself
                    except OSError:
                        pass
                    try:
                        process.wait(timeout=STOP_GRACE_S)
                    except subprocess.TimeoutExpired:
                        pass
                if process.poll() is None:
                    process.kill()
                    process.wait()
            self._cleanup_locked()

    def _cleanup_locked(self) -> None:
        process = self._process
        if process is not None and process.stdin is not None:
            try:
                process.stdin.close()
            except OSError:
                pass
        self._process = None
        if self._stderr_path is not None:
            self._stderr_path.unlink(missing_ok=True)
            self._stderr_path = None


def _stuck(
    now: float,
    started: float,
    heard: float | None,
    deadline_s: float | None,
    stall_s: float | None,
) -> BackendError | None:
    """The error for a worker that no longer answers in time (its own guard would have stopped
    the call by now), or None."""
    fresh = "and was stopped; the next request starts a fresh one"
    if deadline_s is not None and now > started + deadline_s + STUCK_MARGIN_S:
        return BackendTimeout(
            f"the local model process did not answer within its {deadline_s:g} s deadline {fresh}"
        )
    if stall_s is None:
        return None
    quiet_since = heard if heard is not None else started
    allowed = stall_s + min(stall_s, STUCK_MARGIN_S) + (LOAD_ALLOWANCE_S if heard is None else 0.0)
    if now - quiet_since > allowed:
        return BackendStalled(
            f"the local model process sent nothing for {now - quiet_since:.0f} s {fresh}"
        )
    return None


def _raise_if_cancelled(cancel: CancelToken | None) -> None:
    if cancel is not None and cancel.cancelled:
        raise BackendCancelled("the local model call was cancelled")


def _read_replies(pipe: BinaryIO, replies: queue.Queue[dict[str, Any] | None]) -> None:
    with pipe:
        for line in pipe:
            try:
                replies.put(decode(line))
            except ValueError:
                continue
    replies.put(None)


_workers: dict[WorkerParams, ModelWorker] = {}
_workers_lock = threading.Lock()


def shared_worker(params: WorkerParams, keep_alive_s: float = DEFAULT_KEEP_ALIVE_S) -> ModelWorker:
    """The process-wide worker for `params` (created on first use; not started until a call)."""
    with _workers_lock:
        worker = _workers.get(params)
        if worker is None:
            worker = ModelWorker(params, keep_alive_s)
            _workers[params] = worker
        worker.keep_alive_s = keep_alive_s
        return worker


@atexit.register
def close_all_workers() -> None:
    """Stop every worker of this process (at exit; PR_SET_PDEATHSIG covers a hard kill)."""
    with _workers_lock:
        workers = list(_workers.values())
    for worker in workers:
        worker.close()
