"""Backend settings shared by the CLI, the LSP server and the benchmark (attrs, fully defaulted)."""

from __future__ import annotations

from typing import Literal

import attrs

# Prompt-lookup decoding (lookup_decoding.py): draft tokens per step and the longest n-gram matched.
# On dev fix prompts (1.5B) 10 tokens give 2.33 tokens per evaluation, fewer give less (4: 2.04,
# 2: 1.73); no length pays on a 2-core CPU, where it is off (docs/bench/MODELS.md).
LOOKUP_TOKENS = 10
LOOKUP_NGRAM = 3


@attrs.define
class BackendSettings:
    backend: Literal["llama", "openai"] = "llama"
    model_path: str = ""  # a GGUF file or a known model name; "" = the default (models.py)
    endpoint_url: str = ""  # OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1
    model_name: str = ""  # model name sent to the endpoint
    api_key_env: str = "OPENAI_API_KEY"  # NAME of the env variable holding the key (never the key)
    allow_remote: bool = False  # consent to send code to a non-loopback endpoint
    n_gpu_layers: int | None = None  # None: all layers (-1) when the binding supports offload
    n_ctx: int = 8192
    n_threads: int | None = None  # None: one per physical core (llama_loader.physical_cores)
    # One model call's limits (-> DebugRequest): no progress for stall_s (model_stall_s), and a
    # fixed total timeout_s on top (model_call_deadline_s; 0: none).
    stall_s: float = 40.0
    timeout_s: float = 0.0
    keep_alive_s: float = 300.0  # stop the idle model process after this long (frees memory)
    prompt_form: Literal["auto", "completion", "chat"] = "auto"
    # Local model: prompt-lookup (n-gram) speculative decoding. Off: on a 2-core CPU it measured
    # 0.32-0.53x (a batch of k tokens costs ~0.7k single ones), docs/bench/MODELS.md.
    lookup_decoding: bool = False
