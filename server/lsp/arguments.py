"""Typed arguments of the server's commands (`selfdebug.selfDebug`, `selfdebug.runTests`).

Why validate here: pygls hands a command its raw JSON arguments, and a malformed request must get
a JSON-RPC InvalidParams error at once rather than a traceback or silence.

Argument schema (one JSON object, the command's only argument):

    {"uri": "file:///...", "qualname": "Class.method", "version": 3, "mode": "print"}
    {"uri": "file:///...", "position": {"line": 12, "character": 4}}

`uri` is required, plus `qualname` (the function's dotted name) or `position` (0-based line,
UTF-16 column anywhere inside the function: the innermost function there is used). `version` is
the document version the caller saw (optional; the edit is refused if the document changed
since). `mode` is one of the engine's modes (optional; default: the `mode` setting).
"""

from __future__ import annotations

from typing import Any

import attrs
from cattrs.gen import make_dict_structure_fn
from pygls.exceptions import JsonRpcInvalidParams

from selfdebug.server.engine.types import MODES
from selfdebug.server.lsp.settings import strict_converter


@attrs.frozen
class CursorPosition:
    line: int = attrs.field(validator=attrs.validators.ge(0))
    character: int = attrs.field(validator=attrs.validators.ge(0))


def _file_uri(instance: object, attribute: attrs.Attribute, value: str) -> None:
    if not value.startswith("file:"):
        raise ValueError(f"uri must be a file: URI, got {value!r}")


def _mode(instance: object, attribute: attrs.Attribute, value: str | None) -> None:
    if value is not None and value not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {value!r}")


@attrs.frozen
class FunctionTarget:
    """Which function a command works on, and how."""

    uri: str = attrs.field(validator=_file_uri)
    qualname: str | None = None
    position: CursorPosition | None = None
    version: int | None = None
    mode: str | None = attrs.field(default=None, validator=_mode)

    def __attrs_post_init__(self) -> None:
        if not self.qualname and self.position is None:
            raise ValueError("give either qualname or position")


_converter = strict_converter()
for _cls in (CursorPosition, FunctionTarget):
    _converter.register_structure_hook(
        _cls, make_dict_structure_fn(_cls, _converter, _cattrs_forbid_extra_keys=True)
    )


def parse_target(arguments: tuple[Any, ...]) -> FunctionTarget:
    """Build the typed target from a command's JSON arguments, or raise InvalidParams."""
    if len(arguments) != 1 or not isinstance(arguments[0], dict):
        raise JsonRpcInvalidParams(
            "expected one argument: an object {uri, qualname | position, version?, mode?}"
        )
    try:
        return _converter.structure(arguments[0], FunctionTarget)
    except Exception as error:
        raise JsonRpcInvalidParams(f"bad arguments: {_explain(error)}")


def _explain(error: BaseException) -> str:
    """cattrs groups errors; a user wants the first concrete one."""
    inner = getattr(error, "exceptions", None)
    if inner:
        return _explain(inner[0])
    return str(error)
