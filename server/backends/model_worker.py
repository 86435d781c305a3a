"""The model worker process (`selfdebug model-worker`): llama.cpp runs here, not in the server.

Why a process: llama.cpp is native code; a crash in it (an AMX kernel, a bad GGUF, the kernel's
OOM killer) must end this process only, so the language server keeps answering and the next request
starts a fresh worker. The worker exits when its parent dies (PR_SET_PDEATHSIG and end of stdin),
and ignores Ctrl-C in a terminal (the parent decides when it stops).

One thread reads requests; calls run one at a time on a second thread, so a cancel message can
reach the running call (llama.cpp's abort callback then stops it within a token or graph node).
A call's progress (prompt batches, tokens) goes back as it comes, at most every PROGRESS_EVERY_S:
the client knows the worker is alive, and the editor shows how far the model has come.
"""

from __future__ import annotations

import ctypes
import os
import queue
import signal
import sys
import threading
import time
from dataclasses import asdict
from typing import Any, BinaryIO

from selfdebug.server.backends.base import CallProgress
from selfdebug.server.backends.llama_local import LocalLlama
from selfdebug.server.backends.worker_protocol import (
    WorkerParams,
    decode,
    encode,
    error_message,
    request_from,
)
from selfdebug.server.cancel import CancelToken

PR_SET_PDEATHSIG = 1
PROGRESS_EVERY_S = 0.2


def die_with_parent() -> None:
    """Ask Linux to kill us when the parent dies (no-op elsewhere; stdin EOF still ends us)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


class Worker:
    def __init__(self, params: WorkerParams, replies: BinaryIO) -> None:
        self._params = params
        self._replies = replies
        self._reply_lock = threading.Lock()
        self._model: LocalLlama | None = None
        self._jobs: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._cancels: dict[int, CancelToken] = {}
        self._cancels_lock = threading.Lock()

    def reply(self, message: dict[str, Any]) -> None:
        with self._reply_lock:
            self._replies.write(encode(message))
            self._replies.flush()

    def model(self) -> LocalLlama:
        if self._model is None:
            p = self._params
            self._model = LocalLlama(
                p.model_path,
                n_gpu_layers=p.n_gpu_layers,
                n_ctx=p.n_ctx,
                n_threads=p.n_threads,
                flash_attn=p.flash_attn,
                prompt_form=p.prompt_form,
                lookup_tokens=p.lookup_tokens,
            )
        return self._model

    def read_requests(self, requests: BinaryIO) -> None:
        """Route each request line; cancels act at once, everything else is queued in order."""
        for line in requests:
            try:
                message = decode(line)
            except ValueError:
                continue
            if message.get("op") == "cancel":
                with self._cancels_lock:
                    token = self._cancels.get(int(message.get("id", -1)))
                if token is not None:
                    token.cancel("cancelled by the client")
                continue
            call_id = int(message.get("id", 0))
            with self._cancels_lock:
                self._cancels[call_id] = CancelToken()
            self._jobs.put(message)
        self._jobs.put(None)  # stdin closed: the parent is done with us

    def run_jobs(self) -> None:
        while (message := self._jobs.get()) is not None:
            call_id = int(message.get("id", 0))
            with self._cancels_lock:
                token = self._cancels[call_id]
            try:
                self.reply({"id": call_id, "event": "done", **self._handle(message, token)})
            except Exception as error:  # typed BackendErrors and anything unexpected alike
                self.reply(error_message(call_id, error))
            finally:
                with self._cancels_lock:
                    self._cancels.pop(call_id, None)

    def _handle(self, message: dict[str, Any], token: CancelToken) -> dict[str, Any]:
        op = message.get("op")
        call_id = int(message.get("id", 0))
        if op == "complete":
            request = request_from(message)

            def stream(piece: str) -> None:
                self.reply({"id": call_id, "event": "text", "text": piece})

            on_text = stream if message.get("stream") else None
            sent = [0.0, 0.0]  # when the last report went, and its token count

            def progress(now: CallProgress) -> None:
                # Prompt reports and the first token's always go: a short answer (6 tokens in
                # 0.1 s) must still show that tokens came, whatever the prompt reported just before.
                first_token = now.tokens and not sent[1]
                if time.monotonic() - sent[0] >= PROGRESS_EVERY_S or not now.tokens or first_token:
                    sent[0], sent[1] = time.monotonic(), now.tokens
                    self.reply({"id": call_id, "event": "progress", "progress": asdict(now)})

            model = self.model()
            completion = model.complete(
                request, cancel=token, on_text=on_text, on_progress=progress
            )
            return {"completion": asdict(completion)}
        if op == "score_infill":
            scores = self.model().score_infill(
                str(message["prefix"]),
                str(message["suffix"]),
                [str(text) for text in message["texts"]],
                cancel=token,
                deadline_s=float(message.get("budget_s", 60.0)),
            )
            return {"scores": scores}
        if op == "info":
            return {"info": self.model().info()}
        if op == "count_tokens":
            return {"tokens": self.model().count_tokens(str(message.get("text", "")))}
        if op == "reset":
            self.model().reset()
            return {}
        raise ValueError(f"unknown worker op {op!r}")


def serve(params: WorkerParams, reply_fd: int) -> int:
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    worker = Worker(params, os.fdopen(reply_fd, "wb", buffering=0))
    reader = threading.Thread(
        target=worker.read_requests, args=(sys.stdin.buffer,), name="requests", daemon=True
    )
    reader.start()
    worker.run_jobs()
    if os.getppid() != parent:
        return 1
    return 0
