"""Settings -> the one backend a session talks to.

Why the scripted backend comes first: tests drive real server processes (LSP, editors) and need
deterministic model answers without touching those processes' settings, so an environment
variable wins over everything else.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from selfdebug.server.backends.assemble import (
    Notice,
    Progress,
    stderr_notice,
    stderr_progress,
)
from selfdebug.server.backends.base import Backend, BackendConfigError
from selfdebug.server.backends.scripted import SCRIPT_ENV, ScriptedBackend
from selfdebug.server.backends.settings import BackendSettings


def make_backend(
    settings: BackendSettings,
    env: Mapping[str, str] = os.environ,
    *,
    notice: Notice | None = stderr_notice,
    progress: Progress | None = stderr_progress,
) -> Backend:
    """Cheap: nothing is loaded or sent here (the llama model loads on its first call).
    `notice`/`progress` report the one-time preparation of the embedded model."""
    script = env.get(SCRIPT_ENV)
    if script:
        backend = ScriptedBackend.from_file(script)
        if settings.prompt_form != "auto":
            backend.prompt_form = settings.prompt_form
        return backend
    if settings.backend == "llama":
        from selfdebug.server.backends.llama import LlamaBackend

        return LlamaBackend.from_settings(settings, notice=notice, progress=progress)
    if settings.backend == "openai":
        from selfdebug.server.backends.openai_backend import OpenAIBackend

        return OpenAIBackend.from_settings(settings, env=env)
    raise BackendConfigError(
        f"unknown backend {settings.backend!r}: choose 'llama' (local) or 'openai' (endpoint)"
    )
