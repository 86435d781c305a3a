"""The project's own settings: `[tool.selfdebug]` in its pyproject.toml, the way ruff, mypy and
pytest are configured, read by the CLI and the language server alike.

Layers, lowest first: the defaults, the project's file, the editor's settings, the command line's
flags. Keys are the settings' names in kebab-case (`max-turns`, `model-edits-seconds`) or
snake_case; values are checked like an editor's (a bad one is reported and ignored).

Why some keys are refused: the file is part of the repository, and a cloned repository must not
decide what would hand the user's code or machine to someone else. As with a workspace's
settings, it may choose how selfdebug works on it (mode, budgets, timeouts, a known model, a
loopback endpoint) but not trust (`trusted-workspace`), consent to send code off this machine
(`allow-remote`), which key variable is sent (`api-key-env`), which interpreter runs (`python-path`)
or a model file to load (`model-path` only names a known model).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import attrs

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, as a package (a dependency there)
    import tomli as tomllib

from selfdebug.server.lsp.settings import ServerSettings, camel_case, structure_settings

FILE = "pyproject.toml"
TABLE = "tool.selfdebug"
REFUSED = frozenset({"allow_remote", "trusted_workspace", "api_key_env", "python_path"})
_FIELDS = {f.name for f in attrs.fields(ServerSettings)}


@dataclass(frozen=True)
class ProjectSettings:
    """What the project's file sets: `values` by field name (checked), in the editor's camelCase
    form as `layer`, and one sentence per key that was ignored."""

    values: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def layer(self) -> dict[str, Any]:
        return {camel_case(name): value for name, value in self.values.items()}


def read_project_settings(root: Path | str) -> ProjectSettings:
    """`[tool.selfdebug]` of the pyproject.toml in `root` (nothing when there is none)."""
    path = Path(root) / FILE
    try:
        with path.open("rb") as handle:
            table = tomllib.load(handle).get("tool", {}).get("selfdebug", {})
    except FileNotFoundError:
        return ProjectSettings()
    except (OSError, tomllib.TOMLDecodeError) as error:
        return ProjectSettings(problems=[f"{path} could not be read: {error}"])
    if not isinstance(table, dict):
        return ProjectSettings(problems=[f"[{TABLE}] in {path} is not a table"])
    problems: list[str] = []
    given: dict[str, Any] = {}
    for key, value in table.items():
        name = key.replace("-", "_")
        if name not in _FIELDS:
            problems.append(f"[{TABLE}] {key}: no such setting; ignored")
        elif name in REFUSED:
            problems.append(f"[{TABLE}] {key}: a project cannot set it (the user's own); ignored")
        elif name == "model_path" and _is_file_name(value):
            problems.append(f"[{TABLE}] {key}: a project names a known model, not a file; ignored")
        else:
            given[name] = value
    checked = structure_settings({camel_case(n): v for n, v in given.items()})
    problems += [f"[{TABLE}] {p}" for p in checked.problems]
    bad = {p.split(":", 1)[0].rsplit(".", 1)[-1] for p in checked.problems}
    values = {n: getattr(checked.settings, n) for n in given if camel_case(n) not in bad}
    return ProjectSettings(values, problems)


def _is_file_name(value: object) -> bool:
    return isinstance(value, str) and ("/" in value or "\\" in value or value.endswith(".gguf"))
