"""Typed arguments of the server's commands (`selfdebug.selfDebug`, `selfdebug.runTests`).

Why validate here: pygls hands a command its raw JSON arguments, and a malformed request must get
a JSON-RPC InvalidParams error at once rather than a traceback or silence.

Argument schema (one JSON object, the command's only argument):

    {"uri": "file:///...", "qualname": "Class.method", "version": 3, "mode": "print"}
    {"uri": "file:///...", "position": {"line": 12, "character": 4}}

`uri` is required, plus `qualname` (the function's dotted name) or `position` (0-based line,
UTF-16 column anywhere inside the function: the innermost function there is used). `version` is
the document version the caller saw (optional; a self-debug session is refused at once when the
document is no longer at that version, and its fix when the document changes during the session).
`mode` is one of the engine's modes (optional; default: the `mode` setting when the session
starts).
"""

from __future__ import annotations

from typing import Any

import attrs
from cattrs.errors import AttributeValidationNote
from cattrs.gen import make_dict_structure_fn
from pygls.exceptions import JsonRpcInvalidParams

from selfdebug.server.engine.types import Mode
from selfdebug.server.lsp.settings import strict_converter


@attrs.frozen
class CursorPosition:
    line: int = attrs.field(validator=attrs.validators.ge(0))
    character: int = attrs.field(validator=attrs.validators.ge(0))


def _file_uri(instance: object, attribute: attrs.Attribute, value: str) -> None:
    if not value.startswith("file:"):
        raise ValueError(f"uri must be a file: URI, got {value!r}")


@attrs.frozen
class FunctionTarget:
    """Which function a command works on, and how."""

    uri: str = attrs.field(validator=_file_uri)
    qualname: str | None = None
    position: CursorPosition | None = None
    version: int | None = None
    mode: Mode | None = None  # checked against the Literal's values (see `strict_converter`)

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


def _explain(error: BaseException, path: str = "") -> str:
    """cattrs groups errors; a user wants the first concrete one, named by the argument it is
    about ("position.line: ...")."""
    inner = getattr(error, "exceptions", None)
    if not inner:
        return f"{path}: {error}" if path else str(error)
    first = inner[0]
    notes = getattr(first, "__notes__", ())
    names = [note.name for note in notes if isinstance(note, AttributeValidationNote)]
    return _explain(first, ".".join(part for part in (path, *names) if part))
