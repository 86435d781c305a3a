"""One vocabulary: the modes (`Mode` in server/engine/types.py, what each does in
server/engine/modes.py) and the settings (`ServerSettings` in
server/lsp/settings.py) are written once in Python; the VS Code extension's manifest and
client-vscode/src/settings.ts are checked against them here, so adding a mode or a setting
cannot leave an editor behind. (test/manifest.test.ts also checks settings.ts against the manifest
at runtime; tsc checks `SERVER_DEFAULTS` against the `ServerSettings` interface.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, get_args

import attrs
import pytest

from selfdebug.server.engine.modes import EDITOR_MODES, STRATEGIES, ModeStrategy
from selfdebug.server.engine.types import MODES
from selfdebug.server.lsp.settings import ServerSettings, camel_case, structure_settings

CLIENT = Path(__file__).resolve().parent.parent / "client-vscode"
# Settings of the extension itself, never sent to the server: which server runs (interpreter,
# path, importStrategy: client-vscode/src/serverResolution.ts) and the protocol trace.
CLIENT_ONLY = {"interpreter", "path", "importStrategy", "trace.server"}
# Server settings the VS Code extension does not offer (yet): a user or the client grants them
# through `initializationOptions` (docs/SECURITY.md).
NOT_IN_VSCODE = {"requireSandbox", "trustedWorkspace"}
JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string"}


def manifest_properties() -> dict[str, dict[str, Any]]:
    manifest = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))
    properties = manifest["contributes"]["configuration"]["properties"]
    return {name.removeprefix("selfdebug."): schema for name, schema in properties.items()}


def server_fields() -> dict[str, attrs.Attribute]:
    return {camel_case(f.name): f for f in attrs.fields(ServerSettings)}


def ts_server_defaults() -> dict[str, Any]:
    """`SERVER_DEFAULTS` of settings.ts: one `key: value,` per line, values in JSON but for the
    quotes."""
    source = (CLIENT / "src" / "settings.ts").read_text(encoding="utf-8")
    body = re.search(r"export const SERVER_DEFAULTS[^=]*= \{\n(.*?)\n\};", source, re.DOTALL)
    assert body, "SERVER_DEFAULTS not found in settings.ts"
    defaults = {}
    for line in body.group(1).splitlines():
        key, value = re.fullmatch(r"\s*(\w+): (.+),", line).groups()  # type: ignore[union-attr]
        defaults[key] = json.loads(value.replace("'", '"'))
    return defaults


def test_every_mode_but_auto_has_its_strategy():
    assert MODES[0] == "auto" and len(set(MODES)) == len(MODES)
    assert list(STRATEGIES) == list(MODES[1:])
    assert all(isinstance(s, ModeStrategy) and s.name == name for name, s in STRATEGIES.items())


def test_the_extension_offers_the_editor_modes_with_the_server_default():
    mode = manifest_properties()["mode"]
    assert mode["enum"] == list(EDITOR_MODES)
    assert len(mode["enumDescriptions"]) == len(EDITOR_MODES)
    assert mode["default"] == attrs.fields(ServerSettings).mode.default
    assert set(get_args(attrs.fields(ServerSettings).mode.type)) == set(MODES)


def test_the_extension_contributes_every_server_setting_with_its_default_and_type():
    properties = manifest_properties()
    fields = server_fields()
    assert set(properties) - CLIENT_ONLY == set(fields) - NOT_IN_VSCODE
    for key in set(fields) - NOT_IN_VSCODE:
        schema, field = properties[key], fields[key]
        assert schema["default"] == field.default, key
        if "type" in schema:  # not testSelection: "auto" or a list of node ids (anyOf)
            assert schema["type"] == JSON_TYPES.get(field.type, "string"), key  # type: ignore[arg-type]


@pytest.mark.parametrize("key", ["backend", "isolation", "mode"])
def test_the_server_accepts_every_value_the_extension_offers(key):
    for value in manifest_properties()[key]["enum"]:
        result = structure_settings({key: value})
        assert result.problems == [] and getattr(result.settings, key) == value


def test_settings_ts_sends_every_server_setting_with_the_server_default():
    fields = server_fields()
    defaults = ts_server_defaults()
    assert set(defaults) == set(fields) - NOT_IN_VSCODE
    assert defaults == {key: fields[key].default for key in defaults}
