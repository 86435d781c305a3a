"""The local backend: a GGUF model run by llama.cpp in a worker process of ours.

What a user configures is a known model name (the default: Qwen2.5-Coder-1.5B-Instruct) or a GGUF
path; this module turns that into a verified file (assembling a known model on first use, see
assemble.py) and hands calls to the shared worker for that file (worker_client.py), whose crash
becomes a typed error instead of the end of the language server.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from selfdebug.server.backends.assemble import (
    Notice,
    Progress,
    model_path,
    stderr_notice,
    stderr_progress,
)
from selfdebug.server.backends.base import (
    Completion,
    CompletionRequest,
    ProgressSink,
    PromptForm,
    Usage,
)
from selfdebug.server.backends.llama_loader import require_binding, require_model_file
from selfdebug.server.backends.llama_local import prompt_form_of
from selfdebug.server.backends.models import KnownModel, resolve_model_spec
from selfdebug.server.backends.settings import LOOKUP_TOKENS, BackendSettings
from selfdebug.server.backends.worker_client import (
    DEFAULT_KEEP_ALIVE_S,
    ModelWorker,
    shared_worker,
)
from selfdebug.server.backends.worker_protocol import WorkerParams
from selfdebug.server.cancel import CancelToken


class LlamaBackend:
    """`Backend` on a local GGUF in a worker process; `model=""` is the default known model."""

    def __init__(
        self,
        model: str | Path = "",
        *,
        n_gpu_layers: int | None = None,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        flash_attn: bool = True,
        prompt_form: str = "auto",
        lookup_decoding: bool = False,
        keep_alive_s: float = DEFAULT_KEEP_ALIVE_S,
        notice: Notice | None = stderr_notice,
        progress: Progress | None = stderr_progress,
    ) -> None:
        require_binding()
        self._known, self._path = resolve_model_spec(str(model))
        self._load_options: dict[str, Any] = {
            "n_gpu_layers": n_gpu_layers,
            "n_ctx": n_ctx,
            "n_threads": n_threads,
            "flash_attn": flash_attn,
            "lookup_tokens": LOOKUP_TOKENS if lookup_decoding else 0,
        }
        self._keep_alive_s = keep_alive_s
        self._notice = notice
        self._progress = progress
        self._worker: ModelWorker | None = None
        self._lock = threading.Lock()
        self.name = f"llama:{self._known.name if self._known else Path(str(model)).name}"
        self.prompt_form: PromptForm = _prompt_form(self._known, self._path, prompt_form)
        self.usage = Usage()

    @classmethod
    def from_settings(
        cls,
        settings: BackendSettings,
        notice: Notice | None = stderr_notice,
        progress: Progress | None = stderr_progress,
    ) -> LlamaBackend:
        return cls(
            settings.model_path,
            n_gpu_layers=settings.n_gpu_layers,
            n_ctx=settings.n_ctx,
            n_threads=settings.n_threads,
            prompt_form=settings.prompt_form,
            lookup_decoding=settings.lookup_decoding,
            keep_alive_s=settings.keep_alive_s,
            notice=notice,
            progress=progress,
        )

    @property
    def known_model(self) -> KnownModel | None:
        return self._known

    def model_file(self) -> Path:
        """The GGUF this backend runs (assembling a known model on first use: blocking)."""
        if self._known is not None:
            return model_path(self._known, self._notice, self._progress)
        assert self._path is not None
        require_model_file(self._path)
        return self._path

    def worker(self) -> ModelWorker:
        """The shared worker for this model (the process itself starts on the first call)."""
        with self._lock:
            if self._worker is None:
                params = WorkerParams(
                    model_path=str(self.model_file().resolve()),
                    prompt_form=self.prompt_form,
                    **self._load_options,
                )
                self._worker = shared_worker(params, self._keep_alive_s)
            return self._worker

    def complete(
        self,
        request: CompletionRequest,
        cancel: CancelToken | None = None,
        on_text: Callable[[str], None] | None = None,
        on_progress: ProgressSink | None = None,
    ) -> Completion:
        completion = self.worker().complete(
            request, cancel=cancel, on_text=on_text, on_progress=on_progress
        )
        self.usage.add(completion)
        return completion

    def score_infill(
        self,
        prefix: str,
        suffix: str,
        texts: list[str],
        cancel: CancelToken | None = None,
        deadline_s: float = 60.0,
    ) -> list[float]:
        """Each text's mean log-probability per token as the model's fill between `prefix` and
        `suffix` (infill_score.py); InfillUnsupported for a model without FIM tokens."""
        reply = self.worker().op(
            "score_infill",
            deadline_s=deadline_s + 5.0,  # the worker's own guard stops it first
            cancel=cancel,
            prefix=prefix,
            suffix=suffix,
            texts=texts,
            budget_s=deadline_s,
        )
        return [float(score) for score in reply["scores"]]

    def info(self) -> dict[str, Any]:
        """Build and model facts from the worker (loads the model; `selfdebug doctor`)."""
        return dict(self.worker().op("info")["info"])

    @property
    def context_tokens(self) -> int:
        """The context window the model is loaded with (the engine fits its prompts in it)."""
        return int(self._load_options["n_ctx"])

    def count_tokens(self, text: str) -> int:
        return int(self.worker().op("count_tokens", text=text)["tokens"])

    def reset(self) -> None:
        """Forget the worker's KV prefix (the next call is cold): for the benchmark."""
        self.worker().op("reset")

    def close(self) -> None:
        """The worker stays for the process (later sessions reuse it) until its idle time ends."""
        self._worker = None


def _prompt_form(known: KnownModel | None, path: Path | None, setting: str) -> PromptForm:
    if setting in ("chat", "completion"):
        return "chat" if setting == "chat" else "completion"
    if known is not None:
        return known.prompt_form  # known without assembling the file
    assert path is not None
    return prompt_form_of(path, setting)
