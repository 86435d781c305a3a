"""llama.cpp in THIS process (llama-cpp-python) on a GGUF file: what the model worker runs.

The server and the CLI never run this directly: they talk to a worker process (llama.py,
worker_client.py), so that a native crash in llama.cpp kills the worker, not the editor's server.
The benchmark also runs it in-process to measure what the worker costs.

Why tokens in, not text: we tokenize the prompt ourselves (raw text for base models, the GGUF's
own chat template for instruct models), which gives exact prompt token counts, a context-overflow
check with real numbers before any work, and the exact cached-prefix length, since llama-cpp-python
only re-evaluates the tokens after the longest prefix shared with the previous call on the shared
model instance (see llama_loader.py).

Every call streams internally, so that cancel, the stall rule and a deadline stop it between
tokens; llama.cpp's abort callback stops it inside a long prompt evaluation too. The prompt is
evaluated one batch (n_batch tokens, llama.cpp's own split) at a time, and each batch counts as
progress: a long prompt on a slow CPU is slow, not stalled.

With `lookup_tokens` > 0, generation drafts that many tokens from the prompt at each step and
verifies them in one evaluation (prompt-lookup decoding, lookup_decoding.py): the same text, faster
when the reply copies the prompt.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from selfdebug.server.backends.base import (
    BackendBadResponse,
    BackendConfigError,
    Completion,
    CompletionRequest,
    ContextOverflow,
    InfillUnsupported,
    ProgressSink,
    PromptForm,
    Usage,
)
from selfdebug.server.backends.gguf_meta import CHAT_TEMPLATE_KEY, read_string_metadata
from selfdebug.server.backends.guard import CallGuard
from selfdebug.server.backends.llama_loader import (
    LoadedModel,
    LoadParams,
    default_gpu_layers,
    import_llama_cpp,
    load_model,
    require_binding,
    require_model_file,
)
from selfdebug.server.backends.settings import LOOKUP_NGRAM
from selfdebug.server.cancel import CancelToken

WHAT = "the local model call"


@dataclass
class _Prompt:
    tokens: list[int]
    stop: list[str]


@dataclass
class _Sample:
    text: str
    generated_tokens: int
    finish_reason: str
    first_token_at: float | None  # monotonic time the first token was sampled


class LocalLlama:
    """A `Backend` on a GGUF file, in this process. `prompt_form="auto"` reads the GGUF header."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        n_gpu_layers: int | None = None,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        flash_attn: bool = True,
        prompt_form: str = "auto",
        lookup_tokens: int = 0,
        lookup_ngram: int = LOOKUP_NGRAM,
    ) -> None:
        self._model_path = Path(model_path).expanduser()
        self._n_gpu_layers = n_gpu_layers
        self._n_ctx = n_ctx
        self._n_threads = n_threads
        self._flash_attn = flash_attn
        self.lookup_tokens = lookup_tokens  # draft tokens per step; 0: no lookup decoding
        self.lookup_ngram = lookup_ngram
        self._model: LoadedModel | None = None
        self._load_lock = threading.Lock()
        require_binding()
        self.name = f"llama:{self._model_path.name}"
        self.prompt_form: PromptForm = prompt_form_of(self._model_path, prompt_form)
        self.usage = Usage()

    def load(self) -> LoadedModel:
        """Load (or reuse) the shared model. Blocking: call it from a worker thread."""
        with self._load_lock:
            if self._model is None:
                gpu_layers = self._n_gpu_layers
                if gpu_layers is None:
                    gpu_layers = default_gpu_layers()
                params = LoadParams(
                    str(self._model_path.resolve()),
                    gpu_layers,
                    self._n_ctx,
                    self._n_threads,
                    self._flash_attn,
                )
                self._model = load_model(params)
            return self._model

    def complete(
        self,
        request: CompletionRequest,
        cancel: CancelToken | None = None,
        on_text: Callable[[str], None] | None = None,
        on_progress: ProgressSink | None = None,
    ) -> Completion:
        started = time.monotonic()
        model = self.load()  # before the guard: loading is no progress, nor can it be stopped
        guard = CallGuard(
            request.deadline_s, cancel, stall_s=request.stall_s, on_progress=on_progress
        )
        with guard:
            guard.raise_if_stopped(WHAT)
            prompt = _tokenize(model, request)
            _check_context(model, len(prompt.tokens), request.max_tokens)
            stop = [*request.stop, *prompt.stop]
            _acquire(model.call_lock, guard)
            try:
                guard.prompt_progress(0, len(prompt.tokens))  # the model is this call's now
                model.active_guard = guard
                model.llm.lookup = _lookup_draft(self.lookup_tokens, self.lookup_ngram)
                if request.cold:
                    model.llm.reset()  # nothing from the KV cache (CompletionRequest.cold)
                # what _evaluate_all_but_last will take from the cache instead of evaluating
                cached = shared_prefix(model.llm, prompt.tokens[:-1])
                generation_started = time.monotonic()
                samples = _sample_all(model, prompt.tokens, stop, request, guard, on_text)
            finally:
                model.active_guard = None
                model.call_lock.release()
        first = samples[0].first_token_at
        completion = Completion(
            texts=[sample.text for sample in _repeat(samples, request.n)],
            prompt_tokens=len(prompt.tokens),
            completion_tokens=sum(sample.generated_tokens for sample in samples),
            seconds=time.monotonic() - started,
            prompt_seconds=(first - generation_started) if first is not None else 0.0,
            finish_reasons=[sample.finish_reason for sample in _repeat(samples, request.n)],
            model=Path(model.params.model_path).name,
            cached_prompt_tokens=cached,
        )
        self.usage.add(completion)
        return completion

    def score_infill(
        self,
        prefix: str,
        suffix: str,
        texts: list[str],
        cancel: CancelToken | None = None,
        deadline_s: float | None = 60.0,
    ) -> list[float]:
        """Each text's mean log-probability per token as the fill between `prefix` and
        `suffix` (infill_score.py). Raises InfillUnsupported without FIM tokens."""
        from selfdebug.server.backends.infill_score import mean_logprobs

        model = self.load()
        guard = CallGuard(deadline_s, cancel, stall_s=30.0)
        with guard:
            prompt = _infill_tokens(model, prefix, suffix)
            _check_context(model, len(prompt), 256)
            _acquire(model.call_lock, guard)
            try:
                model.active_guard = guard
                model.llm.lookup = None
                return mean_logprobs(model, prompt, texts, guard)
            except (RuntimeError, ValueError) as error:  # llama_decode aborted, or failed
                if guard.stopped:
                    raise guard.error(WHAT) from None
                raise BackendBadResponse(f"llama.cpp failed while scoring: {error}") from None
            finally:
                model.active_guard = None
                model.call_lock.release()

    def count_tokens(self, text: str) -> int:
        return len(self.load().llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def reset(self) -> None:
        """Forget the KV prefix (the next call is a cold start): for the benchmark."""
        self.load().llm.reset()

    def info(self) -> dict[str, object]:
        """What the loaded model and this build of llama.cpp are (for `selfdebug doctor`)."""
        llama_cpp = import_llama_cpp()
        model = self.load()
        return {
            "model": Path(model.params.model_path).name,
            "system_info": llama_cpp.llama_print_system_info().decode("utf-8", "replace"),
            "gpu_offload_supported": bool(llama_cpp.llama_supports_gpu_offload()),
            "n_gpu_layers": model.params.n_gpu_layers,
            "n_threads": model.llm.n_threads,
            "n_threads_batch": model.llm.n_threads_batch,
            "n_ctx": model.llm.n_ctx(),
            "chat_template": model.chat_template is not None,
        }

    def close(self) -> None:
        """The model stays cached for the process (other backends and later sessions reuse it)."""
        self._model = None


def prompt_form_of(model_path: Path, setting: str) -> PromptForm:
    """Chat when the GGUF carries a chat template, else completion (a base model); the setting
    overrides. Read from the file header: cheap, and no model load just to know this."""
    if setting in ("chat", "completion"):
        return "chat" if setting == "chat" else "completion"
    require_model_file(model_path)
    try:
        template = read_string_metadata(model_path, CHAT_TEMPLATE_KEY)
    except (OSError, ValueError) as error:
        raise BackendConfigError(f"cannot read the model file {model_path}: {error}")
    return "chat" if template else "completion"


def _tokenize(model: LoadedModel, request: CompletionRequest) -> _Prompt:
    llm = model.llm
    if request.infill is not None:
        return _Prompt(_infill_tokens(model, *request.infill), [])
    if request.prompt is not None:
        return _Prompt(llm.tokenize(request.prompt.encode("utf-8"), add_bos=True, special=True), [])
    template = model.chat_template
    if template is None:
        raise BackendConfigError(
            f"{Path(model.params.model_path).name} has no chat template (a base model): "
            "set the prompt form to 'completion' (or 'auto')"
        )
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    eos_id, bos_id = llm.token_eos(), llm.token_bos()
    formatter = Jinja2ChatFormatter(
        template=template,
        eos_token=llm._model.token_get_text(eos_id) if eos_id != -1 else "",
        bos_token=llm._model.token_get_text(bos_id) if bos_id != -1 else "",
    )
    try:
        rendered = formatter(messages=cast(Any, request.messages or []))
    except Exception as error:  # the template itself may reject the messages (roles, order)
        raise BackendConfigError(f"the model's chat template rejected the messages: {error}")
    stop = [rendered.stop] if isinstance(rendered.stop, str) else list(rendered.stop or [])
    tokens = llm.tokenize(rendered.prompt.encode("utf-8"), add_bos=False, special=True)
    return _Prompt(tokens, [s for s in stop if s])


def fim_token_ids(llm: Any) -> tuple[int, int, int] | None:
    """The model's own fill-in-the-middle tokens (prefix, suffix, middle), as llama.cpp found
    them in the GGUF's vocabulary; None when it has none.

    Not llama-cpp-python's `create_completion(prompt, suffix=...)`: its 0.3 releases put token
    0 where the FIM tokens belong ("TODO: Fix" in Llama._create_completion), so Qwen2.5-Coder
    read `!` markers and wrote unrelated code (new `def` lines)."""
    llama_cpp = import_llama_cpp()
    vocab = llm._model.vocab
    ids = tuple(
        int(getattr(llama_cpp, f"llama_vocab_fim_{part}")(vocab)) for part in ("pre", "suf", "mid")
    )
    return None if min(ids) < 0 else (ids[0], ids[1], ids[2])


def _infill_tokens(model: LoadedModel, prefix: str, suffix: str) -> list[int]:
    """prefix-suffix-middle order (PSM, what Qwen2.5-Coder, StarCoder and CodeLlama were
    trained with); the code is tokenized as text, so a FIM marker written in it stays text."""
    llm = model.llm
    ids = fim_token_ids(llm)
    if ids is None:
        raise InfillUnsupported(
            f"{Path(model.params.model_path).name} has no fill-in-the-middle tokens"
        )
    pre, suf, mid = ids
    bos = [llm.token_bos()] if llm._model.add_bos_token() and llm.token_bos() >= 0 else []

    def text(part: str) -> list[int]:
        return llm.tokenize(part.encode("utf-8"), add_bos=False, special=False) if part else []

    return [*bos, pre, *text(prefix), suf, *text(suffix), mid]


def _lookup_draft(tokens: int, ngram: int) -> Any:
    if tokens <= 0:
        return None
    from selfdebug.server.backends.lookup_decoding import prompt_lookup

    return prompt_lookup(num_pred_tokens=tokens, max_ngram_size=ngram)


def _check_context(model: LoadedModel, prompt_tokens: int, max_tokens: int) -> None:
    n_ctx = model.llm.n_ctx()
    if prompt_tokens + max_tokens > n_ctx:
        raise ContextOverflow(
            f"the prompt has {prompt_tokens} tokens and the answer may take up to {max_tokens} "
            f"more, but the model's context window holds {n_ctx}: shorten the prompt, lower the "
            "answer length or raise the context size (n_ctx)"
        )


def _acquire(lock: threading.Lock, guard: CallGuard) -> None:
    """Wait for the shared model, still honouring cancel and the deadline."""
    while not lock.acquire(timeout=0.05):
        guard.raise_if_stopped(WHAT)


def shared_prefix(llm: Any, tokens: list[int]) -> int:
    """How many leading `tokens` the KV cache holds already."""
    shared = 0
    for previous, token in zip(llm.input_ids[: llm.n_tokens], tokens, strict=False):
        if previous != token:
            break
        shared += 1
    return shared


def _evaluate_all_but_last(llm: Any, tokens: list[int], guard: CallGuard) -> None:
    """Leave the KV cache holding exactly `tokens[:-1]` (evaluating only what it lacks), so that
    create_completion evaluates the last prompt token alone, for the first sample as for every
    later one and for a repeated request. llama.cpp's logits depend on how a token was batched:
    left to llama-cpp-python, the first sample evaluates the last token inside the prompt's
    batch and later ones alone, so samples with the same seed differed (measured on Gemma 270M
    in tests/test_backend_llama.py).

    One `eval` per n_batch tokens, the same batches llama.cpp's own loop in `eval` makes (the
    same logits), with the guard told after each: that is the prompt's progress."""
    kept = shared_prefix(llm, tokens[:-1])
    llm.n_tokens = kept  # eval() and generate() drop the KV cache beyond n_tokens
    end, step = len(tokens) - 1, max(int(llm.n_batch), 1)
    guard.prompt_progress(kept, len(tokens))
    for start in range(kept, end, step):
        llm.eval(tokens[start : min(start + step, end)])
        guard.prompt_progress(min(start + step, end), len(tokens))


def _sample_all(
    model: LoadedModel,
    tokens: list[int],
    stop: list[str],
    request: CompletionRequest,
    guard: CallGuard,
    on_text: Callable[[str], None] | None,
) -> list[_Sample]:
    """One sample at temperature 0 (greedy: every sample would be the same), else n samples
    with seeds seed, seed+1, ... so that the set is reproducible."""
    count = 1 if request.temperature == 0 else request.n
    samples = []
    for index in range(count):
        seed = None if request.seed is None else request.seed + index
        stream_to = on_text if index == 0 else None
        samples.append(_sample(model, tokens, stop, request, seed, guard, stream_to))
    return samples


def _repeat(samples: list[_Sample], n: int) -> list[_Sample]:
    return samples if len(samples) == n else [samples[0]] * n


class _TokenCounter:
    """A stopping criterion that never stops on content: it counts sampled tokens (each one is
    progress for the guard), notes when the first one came (end of prompt processing) and stops
    generation once the guard fires."""

    def __init__(self, guard: CallGuard) -> None:
        self.guard = guard
        self.count = 0
        self.first_at: float | None = None

    def __call__(self, _input_ids: Any, _logits: Any) -> bool:
        if self.first_at is None:
            self.first_at = time.monotonic()
        self.count += 1
        self.guard.token()  # progress: the stall limit starts again
        return self.guard.stopped


def _sample(
    model: LoadedModel,
    tokens: list[int],
    stop: list[str],
    request: CompletionRequest,
    seed: int | None,
    guard: CallGuard,
    on_text: Callable[[str], None] | None,
) -> _Sample:
    llama_cpp = import_llama_cpp()
    counter = _TokenCounter(guard)
    pieces: list[str] = []
    finish_reason = "stop"
    try:
        _evaluate_all_but_last(model.llm, tokens, guard)
        stream = model.llm.create_completion(
            tokens,
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            stop=stop,
            seed=seed,
            stream=True,
            stopping_criteria=llama_cpp.StoppingCriteriaList([counter]),
        )
        try:
            for chunk in stream:
                choice = chunk["choices"][0]
                piece = choice.get("text") or ""
                if piece:
                    pieces.append(piece)
                    if on_text is not None:
                        on_text(piece)
                finish_reason = choice.get("finish_reason") or finish_reason
                if guard.stopped:
                    break
        finally:
            stream.close()
    except (RuntimeError, ValueError) as error:  # llama_decode aborted by the guard, or failed
        if guard.stopped:
            raise guard.error(WHAT) from None
        raise BackendBadResponse(f"llama.cpp failed during generation: {error}") from None
    guard.raise_if_stopped(WHAT)
    # llama-cpp-python 0.3.x consults stopping criteria once per sampled token (an end-of-text
    # token included) and once more after its loop; tests pin max_tokens -> that many tokens.
    generated = max(counter.count - 1, 0)
    return _Sample("".join(pieces), generated, finish_reason, counter.first_at)
