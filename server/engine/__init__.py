"""The self-debugging loop (Chen et al.) and print debugging (Hu et al.): one engine for the CLI,
the LSP server and the benchmark.

Use:
    request = build_request(file, "Class.method", tests=None, mode="auto")  # finds tests
    result = run_session(request, backend, progress=callback, cancel=token)
    result.diff, result.explanation, result.summary(), result.success

Modules: session (the loop), modes (what each mode does, auto's plan), history (earlier
attempts and repeats), prompting (Jinja2 templates from selfdebug.prompts, overridable by
SELFDEBUG_PROMPTS_DIR), feedback (what the model is told), candidate (extraction and structural
checks), vote (sampling + majority vote), target (the function in its file), recorder and
transcript (JSON lines + progress), diffing, request (DebugRequest building).
"""

from selfdebug.server.engine.request import (
    RequestError,
    build_request,
    default_wider_tests,
    normalize_nodeid,
    resolve_tests,
)
from selfdebug.server.engine.session import run_session
from selfdebug.server.engine.types import (
    MODES,
    DebugRequest,
    DebugResult,
    Progress,
    ProgressCallback,
    TestTally,
)

__all__ = [
    "MODES",
    "DebugRequest",
    "DebugResult",
    "Progress",
    "ProgressCallback",
    "RequestError",
    "TestTally",
    "build_request",
    "default_wider_tests",
    "normalize_nodeid",
    "resolve_tests",
    "run_session",
]
