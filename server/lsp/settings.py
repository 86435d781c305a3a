"""The server's user settings (section "selfdebug"), and how they map onto the engine's inputs.

Why one module: the editor speaks camelCase JSON from `initializationOptions` and
`workspace/configuration`; the engine, the runner and the backends take typed Python objects.
Translating in one place keeps the handlers thin and lets the settings be unit-tested without a
server. A bad value never blocks the user: it is reported as a problem and its default is used.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast, get_args, get_origin

import attrs
import cattrs

from selfdebug.server.backends.settings import BackendSettings
from selfdebug.server.engine.request import new_request
from selfdebug.server.engine.types import (
    DEFAULT_TIME_BUDGET_S,
    Budget,
    DebugRequest,
    Mode,
    ModelOptions,
    Reporting,
)

if TYPE_CHECKING:
    from selfdebug.server.runner.settings import IsolationMode, RunnerSettings

SECTION = "selfdebug"


def _positive(instance: object, attribute: attrs.Attribute, value: float) -> None:
    if value <= 0:
        raise ValueError(f"must be > 0, got {value!r}")


def _not_negative(instance: object, attribute: attrs.Attribute, value: float) -> None:
    if value < 0:
        raise ValueError(f"must be >= 0, got {value!r}")


def _in(choices: tuple[str, ...]):
    def check(instance: object, attribute: attrs.Attribute, value: str) -> None:
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}; got {value!r}")

    return check


def _test_selection(instance: object, attribute: attrs.Attribute, value: object) -> None:
    if value == "auto":
        return
    if not (isinstance(value, list) and all(isinstance(v, str) and v for v in value)):
        raise ValueError(f'must be "auto" or a list of pytest node ids; got {value!r}')


@attrs.frozen
class ServerSettings:
    """Everything a user can set; every field has a default that works out of the box."""

    backend: str = attrs.field(default="llama", validator=_in(("llama", "openai")))
    model_path: str = ""  # a known model name or a GGUF file; "" = the default (Qwen2.5-Coder-1.5B)
    endpoint_url: str = ""
    model_name: str = ""
    api_key_env: str = "OPENAI_API_KEY"  # the NAME of the variable holding the key
    allow_remote: bool = False
    model_keep_alive: float = attrs.field(default=300.0, validator=_not_negative)  # s idle
    # A model call is stopped after this long without progress (no prompt batch, no token)...
    model_stall_seconds: float = attrs.field(default=40.0, validator=_positive)
    # ... or past this fixed total per call (0: none; the session's budget still applies).
    model_call_deadline: float = attrs.field(default=0.0, validator=_not_negative)
    lookup_decoding: bool = False  # local model: prompt-lookup decoding (slower on a CPU)
    mode: Mode = "auto"  # checked against the Literal's values (see `strict_converter`)
    # auto: seconds for the model's local edits when the edit search finds nothing (0: off)
    model_edits_seconds: float = attrs.field(default=90.0, validator=_not_negative)
    # seconds for a whole self-debug: the function's session, or from a failing test the
    # repair of all the suspects together (types.DEFAULT_TIME_BUDGET_S says why this default)
    time_budget_seconds: float = attrs.field(default=DEFAULT_TIME_BUDGET_S, validator=_positive)
    max_turns: int = attrs.field(default=10, validator=_positive)
    samples: int = attrs.field(default=1, validator=_positive)
    test_selection: str | list[str] = attrs.field(default="auto", validator=_test_selection)
    test_timeout: float = attrs.field(default=10.0, validator=_positive)  # seconds per test
    isolation: str = attrs.field(default="auto", validator=_in(("auto", "bwrap", "rlimits")))
    run_on_save: bool = False
    show_report: bool = False
    # a document bigger than this (UTF-8 bytes) gets no self-debug actions: never parsed for them
    max_document_bytes: int = attrs.field(default=2_000_000, validator=_positive)
    python_path: str = ""  # the project's interpreter; "" = the server's own
    # Machine-scoped (see `machine_scoped`): a workspace can neither weaken nor grant them.
    require_sandbox: bool = False  # refuse to run tests without bubblewrap
    trusted_workspace: bool = False  # the client says the user trusts this workspace


def camel_case(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _strict(kind: type) -> Any:
    """cattrs' default hooks coerce ("no" -> True, 2.7 -> 2); a setting must have the right type."""

    def structure(value: object, _: type) -> Any:
        ok = isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not ok:
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__} {value!r}")
        return value

    return structure


def _one_of(value: object, kind: Any) -> Any:
    """A `Literal[...]` field (such as `Mode`) takes exactly one of its values."""
    choices = get_args(kind)
    if value not in choices:
        raise ValueError(f"must be one of {', '.join(map(str, choices))}; got {value!r}")
    return value


def strict_converter() -> cattrs.Converter:
    """A cattrs converter that checks JSON types instead of coercing them."""
    converter = cattrs.Converter()
    for kind in (bool, int, float, str):
        converter.register_structure_hook(kind, _strict(kind))
    converter.register_structure_hook_func(lambda kind: get_origin(kind) is Literal, _one_of)
    return converter


def _make_converter() -> cattrs.Converter:
    converter = strict_converter()

    def selection(value: object, _: type) -> str | list[str]:
        if value == "auto":
            return "auto"
        if isinstance(value, list):
            return [converter.structure(item, str) for item in value]
        raise TypeError(f'expected "auto" or a list of node ids, got {value!r}')

    converter.register_structure_hook(str | list[str], selection)
    return converter


_converter = _make_converter()
attrs.resolve_types(ServerSettings)
_FIELDS = {camel_case(f.name): f for f in attrs.fields(ServerSettings)}


@attrs.frozen
class SettingsResult:
    settings: ServerSettings
    problems: list[str] = attrs.field(factory=list)  # one sentence per ignored value


def structure_settings(*layers: Mapping[str, Any] | None) -> SettingsResult:
    """Merge raw settings layers (later wins) and structure them field by field.

    Each layer is the JSON object of the "selfdebug" section (camelCase keys). A layer that holds
    the section itself under "selfdebug" (as `initializationOptions` may) is unwrapped.
    """
    merged: dict[str, Any] = {}
    problems: list[str] = []
    for layer in layers:
        if layer is None:
            continue
        if not isinstance(layer, Mapping):
            problems.append(f"settings must be an object, got {type(layer).__name__}")
            continue
        if isinstance(layer.get(SECTION), Mapping):
            layer = layer[SECTION]
        merged.update(layer)

    values: dict[str, Any] = {}
    for key, raw in merged.items():
        field = _FIELDS.get(key)
        if field is None:
            problems.append(f"unknown setting {SECTION}.{key} ignored")
            continue
        if raw is None:
            continue  # an unset value in the editor: keep the default
        try:
            value = _converter.structure(raw, field.type)  # type: ignore[arg-type]
            if field.validator is not None:
                field.validator(None, field, value)
        except Exception as error:
            problems.append(f"{SECTION}.{key}: {error}; using the default {field.default!r}")
            continue
        values[field.name] = value
    return SettingsResult(ServerSettings(**values), problems)


def machine_scoped(client: ServerSettings, merged: ServerSettings) -> ServerSettings:
    """Apply the two settings a workspace must not control. `client` is structured from the
    client's own layer (`initializationOptions`: the editor's user/machine settings, VS Code's
    workspace trust); `merged` adds the per-folder `workspace/configuration` answer, which a
    cloned repository can influence (`.vscode/settings.json`). So `requireSandbox` is on when any
    layer turns it on, and `trustedWorkspace` only when the client grants it and no folder
    layer withdraws it."""
    return attrs.evolve(
        merged,
        require_sandbox=client.require_sandbox or merged.require_sandbox,
        trusted_workspace=client.trusted_workspace and merged.trusted_workspace,
    )


def unstructure_settings(settings: ServerSettings) -> dict[str, Any]:
    """The camelCase JSON form (what the editors' settings schema documents)."""
    return {camel_case(k): v for k, v in attrs.asdict(settings).items()}


def backend_settings(settings: ServerSettings) -> BackendSettings:
    return BackendSettings(
        backend=settings.backend,  # type: ignore[arg-type]
        model_path=settings.model_path,
        endpoint_url=settings.endpoint_url,
        model_name=settings.model_name,
        api_key_env=settings.api_key_env,
        allow_remote=settings.allow_remote,
        keep_alive_s=settings.model_keep_alive,
        stall_s=settings.model_stall_seconds,
        timeout_s=settings.model_call_deadline,
        lookup_decoding=settings.lookup_decoding,
    )


def runner_settings(settings: ServerSettings) -> RunnerSettings:
    """The runner's RunnerSettings (imported late: the runner package is heavy to import)."""
    from selfdebug.server.runner import RunnerSettings

    return RunnerSettings(
        interpreter=settings.python_path or None,
        trust_project=settings.trusted_workspace,
        isolation=cast("IsolationMode", settings.isolation),  # validated by the field above
        require_sandbox=settings.require_sandbox,
        test_timeout_s=settings.test_timeout,
    )


def debug_request(
    settings: ServerSettings,
    *,
    file: Path,
    qualname: str,
    project_root: Path,
    tests: list[str],
    wider_tests: list[str],
    mode: Mode | None,
    source_override: str | None,
    transcript_path: Path | None,
) -> DebugRequest:
    """The session's request. `mode` is the command's own (None: the `mode` setting, applied
    here and only here, from the settings fetched as the session starts)."""
    request = new_request(file, qualname, project_root, tests, wider_tests)
    return dataclasses.replace(
        request,
        target=dataclasses.replace(request.target, source_override=source_override),
        mode=mode or settings.mode,
        budget=Budget(
            max_turns=settings.max_turns,
            test_timeout_s=settings.test_timeout,
            model_stall_s=settings.model_stall_seconds,
            model_call_deadline_s=settings.model_call_deadline,
            model_edits_s=settings.model_edits_seconds,
            time_budget_s=settings.time_budget_seconds,
        ),
        model=ModelOptions(samples=settings.samples),
        reporting=Reporting(transcript_path=transcript_path),
    )
