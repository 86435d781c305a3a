"""The selfdebug language server: typed state plus the registration of each feature module.

Protocol glue only: every feature lives in its own module with a `register(server)` function
(lifecycle, configuration, code_actions, run_tests, self_debug, document_sync); what they share
(planning, targets, fix_delivery, diagnostics, progress, report) is in plain modules.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import signal
import sys
import threading
import weakref
from collections.abc import Callable, Coroutine, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from threading import Event
from typing import Any, BinaryIO, TypeVar, cast

import attrs
from lsprotocol.types import (
    MessageType,
    PublishDiagnosticsParams,
    ShowMessageParams,
    TextDocumentSyncKind,
)
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer

from selfdebug import __version__
from selfdebug.server.backends.base import Backend
from selfdebug.server.backends.settings import BackendSettings
from selfdebug.server.cancel import CancelToken
from selfdebug.server.lsp.configuration import SettingsCache
from selfdebug.server.lsp.diagnostics import DiagnosticStore
from selfdebug.server.lsp.document_trees import DocumentTrees
from selfdebug.server.lsp.protocol import INTERNAL_ERROR, AnsweringProtocol
from selfdebug.server.lsp.runners import RunnerPool
from selfdebug.server.lsp.session_queue import SessionQueue
from selfdebug.server.lsp.transport import read_messages, stdio_reader

logger = logging.getLogger(__name__)
T = TypeVar("T")
# How long the way out waits for the cancelled jobs to end (a cancelled test run is killed at
# once; a model call stops at its next token) before the copies are removed regardless.
STOP_WAIT_S = 5.0
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class BackendCache:
    """One model backend, kept between sessions (loading a GGUF takes seconds)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._backend: Backend | None = None

    def get(self, settings: BackendSettings) -> Backend:
        """Blocking (may load a model): call it from a worker thread."""
        from selfdebug.server.backends.factory import make_backend

        key = attrs.astuple(settings)
        with self._lock:
            if self._backend is None or key != self._key:
                self._close()
                self._backend = make_backend(settings)
                self._key = key
            return self._backend

    def _close(self) -> None:
        if self._backend is not None:
            try:
                self._backend.close()
            except Exception:
                logger.exception("closing the backend failed")
        self._backend = None

    def close(self) -> None:
        with self._lock:
            self._close()


class SelfDebugServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "selfdebug",
            __version__,
            TextDocumentSyncKind.Incremental,
            protocol_cls=AnsweringProtocol,
        )
        self.settings_cache = SettingsCache()
        self.diagnostics = DiagnosticStore()  # test failures, their function texts, what ran
        self.trees = DocumentTrees()  # each open document's syntax tree, parsed once per text
        self.backends = BackendCache()
        self.runners = RunnerPool()  # warm shadow copies, reused across jobs
        self.sessions = SessionQueue()  # one model session at a time (one model, one CPU budget)
        self.workers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="selfdebug-job")
        self.background: set[asyncio.Task[Any]] = set()
        # Cancelled on the way out (`close`), and with it the token of every job that may still
        # run: held weakly, as a job's worker holds its token while it runs (even when the
        # request's task is already gone).
        self.stopping = CancelToken()
        self._jobs: weakref.WeakSet[CancelToken] = weakref.WeakSet()
        self._running: set[Future[Any]] = set()  # the blocking work in the worker threads
        self.stopped_by: int | None = None  # the signal that stopped the server, if one did

    def job_token(self) -> CancelToken:
        """A new job's cancel token; the way out cancels it (at once when it has begun)."""
        token = CancelToken()
        self._jobs.add(token)
        if self.stopping.cancelled:
            token.cancel(self.stopping.reason)
        return token

    async def in_worker(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run blocking work off the event loop, so other requests keep being answered."""
        future = self.workers.submit(functools.partial(function, *args, **kwargs))
        self._running.add(future)
        future.add_done_callback(self._running.discard)
        return await asyncio.wrap_future(future)

    def spawn(self, coroutine: Any) -> None:
        """Fire-and-forget work started by a notification (e.g. run on save)."""
        task = asyncio.ensure_future(coroutine)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    def publish_diagnostics(self, uris: Iterable[str]) -> None:
        for uri in uris:
            document = self.workspace.text_documents.get(uri)
            self.text_document_publish_diagnostics(
                PublishDiagnosticsParams(
                    uri=uri,
                    diagnostics=self.diagnostics.for_uri(uri),
                    version=document.version if document else None,
                )
            )

    def show(self, message: str, kind: MessageType = MessageType.Info) -> None:
        self.window_show_message(ShowMessageParams(type=kind, message=f"selfdebug: {message}"))

    def warn_once(self, warning: str) -> None:
        """A warning the user should see once per server, not at every run (isolation, trust)."""
        if warning and self.settings_cache.first_time(warning):
            self.show(warning, MessageType.Warning)

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio with our framing (transport.py: -32700 answers, resynchronising)."""
        from pygls.io_ import StdoutWriter

        self._stop_event = Event()
        protocol = cast(AnsweringProtocol, self.protocol)
        protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))

        async def serve() -> None:
            reader = stdio_reader(stdin or sys.stdin.buffer)
            await read_messages(reader, protocol, self._stop_event)

        self.serve_until_stopped(serve())

    def serve_until_stopped(self, serving: Coroutine[Any, Any, None]) -> None:
        """Run `serving` (the client's messages read and handled) until it ends (the client is
        gone) or SIGINT, SIGTERM or SIGHUP comes (`stopped_by`); then `close`."""

        async def main() -> None:
            loop = asyncio.get_running_loop()
            task = asyncio.current_task()
            if threading.current_thread() is threading.main_thread():
                for signum in STOP_SIGNALS:
                    loop.add_signal_handler(signum, self._stop_by_signal, signum, task)
            try:
                await serving
            except asyncio.CancelledError:
                if self.stopped_by is None:
                    raise

        try:
            asyncio.run(main())
        except BrokenPipeError:
            logger.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.close()
            self.shutdown()

    def _stop_by_signal(self, signum: int, task: asyncio.Task[Any] | None) -> None:
        """Event-loop side: a signal ends the server the way the end of its input does."""
        name = signal.Signals(signum).name
        logger.warning("stopping on %s", name)
        self.stopped_by = signum
        self.stopping.cancel(f"the server is stopping ({name})")
        if task is not None:
            task.cancel()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Errors outside a request: logged in full; the user sees one fixed sentence once."""
        logger.error("server error (%s): %r", getattr(source, "__name__", source), error)
        if source is FeatureRequestError:
            return  # the request's own answer says it
        if self.settings_cache.first_time("internal error"):
            self.window_show_message(
                ShowMessageParams(type=MessageType.Error, message=f"selfdebug: {INTERNAL_ERROR}")
            )

    def close(self) -> None:
        """The way out (`shutdown`, the end of the input, SIGTERM): cancel every job, give them a
        moment to stop (their test processes are killed), then remove every shadow copy and
        release the model. Without the cancel a running session went on for its whole run,
        and the process, waiting for its worker threads, with it."""
        self.stopping.cancel("the server is stopping")
        for token in list(self._jobs):
            token.cancel(self.stopping.reason)
        self.workers.shutdown(wait=False, cancel_futures=True)
        _done, left = wait(list(self._running), timeout=STOP_WAIT_S)
        if left:
            logger.warning(
                "%d job(s) still running after %.0f s on the way out", len(left), STOP_WAIT_S
            )
        self.backends.close()
        self.runners.close()
        self.trees.close()


def create_server() -> SelfDebugServer:
    from selfdebug.server.lsp import (
        code_actions,
        configuration,
        document_sync,
        lifecycle,
        run_tests,
        self_debug,
        self_debug_failure,
    )

    server = SelfDebugServer()
    features = (lifecycle, configuration, code_actions, run_tests, self_debug, self_debug_failure,
                document_sync)  # fmt: skip
    for feature in features:
        feature.register(server)
    return server
