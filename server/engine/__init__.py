"""The self-debugging loop (Chen et al.) and print debugging (Hu et al.): one engine for the CLI,
the LSP server and the benchmark.

Use:
    request = build_request(file, "Class.method", tests=None, mode="auto")  # finds tests
    result = run_session(request, backend, progress=callback, cancel=token)
    result.diff, result.explanation, result.summary(), result.success

Modules: session (the loop), modes (what each mode does, auto's plan), history (earlier
attempts and repeats), evidence (the failing tests' facts, read once per run), feedback (what
the model is told), model_calls/ (one model call: its prompt from the Jinja2 templates of
selfdebug.prompts, overridable by SELFDEBUG_PROMPTS_DIR, fitted to the context; its limits
and failures), answers/ (from a reply to a checked
candidate: extraction, structural and safety checks, sampling + majority vote), target (the
function in its file), recorder and transcript (JSON lines + progress), diffing, request
(DebugRequest building); search/, model_edits/ and suspects/ (the edit search, the model's
local edits, starting from a failing test).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from selfdebug.server.engine.request import (
        RequestError,
        TestChoice,
        build_request,
        choose_tests,
        default_wider_tests,
        normalize_nodeid,
        resolve_tests,
    )
    from selfdebug.server.engine.session import run_session
    from selfdebug.server.engine.types import (
        MODES,
        DebugRequest,
        DebugResult,
        Mode,
        Progress,
        ProgressCallback,
        TestTally,
    )

__all__ = [
    "MODES",
    "DebugRequest",
    "DebugResult",
    "Mode",
    "Progress",
    "ProgressCallback",
    "RequestError",
    "TestChoice",
    "TestTally",
    "build_request",
    "choose_tests",
    "default_wider_tests",
    "normalize_nodeid",
    "resolve_tests",
    "run_session",
]

if not TYPE_CHECKING:  # mypy reads the imports above, so a misspelt name stays an error

    def __getattr__(name: str) -> Any:
        """The names above load the engine on first use (PEP 562): a light submodule such as
        `types` (the CLI's --mode choices) can be imported without the loop, the runner and
        Jinja2."""
        if name not in __all__:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        for submodule in ("types", "request", "session"):
            module = importlib.import_module(f"{__name__}.{submodule}")
            if name in vars(module):
                return vars(module)[name]
        raise AttributeError(name)
