"""The backend of mode `search`: there is no model, and asking it anything is a bug.

Why a backend at all: every front end (CLI, LSP server, benchmark) hands `run_session` a
backend; in `search` mode it gets this one instead of loading a model it must not use.
"""

from __future__ import annotations

from collections.abc import Callable

from selfdebug.server.backends.base import (
    BackendError,
    Completion,
    CompletionRequest,
    ProgressSink,
    PromptForm,
    Usage,
)
from selfdebug.server.cancel import CancelToken


class NoModelBackend:
    def __init__(self) -> None:
        self.name = "none (edit search)"
        self.prompt_form: PromptForm = "chat"
        self.usage = Usage()

    def complete(
        self,
        request: CompletionRequest,
        cancel: CancelToken | None = None,
        on_text: Callable[[str], None] | None = None,
        on_progress: ProgressSink | None = None,
    ) -> Completion:
        raise BackendError("mode search makes no model call")

    def close(self) -> None:
        return None
