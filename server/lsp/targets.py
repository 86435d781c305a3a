"""The function a command works on, as the editor has it now (`FunctionSnapshot`).

Why here: every command names its function by URI and qualname or cursor position; it must be
the editor's current text (saved or not), inside the workspace, and a file the editor does not
have open is read off the event loop. Failures are InvalidParams with a message for the user.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol.types import Position
from pygls.exceptions import JsonRpcInvalidParams
from pygls.workspace import TextDocument

from selfdebug.server.lsp import workspace_files
from selfdebug.server.lsp.arguments import FunctionTarget
from selfdebug.server.lsp.edits import FunctionSnapshot, take_snapshot
from selfdebug.server.lsp.positions import utf16_position

if TYPE_CHECKING:
    from selfdebug.server.lsp.server import SelfDebugServer


def resolve(
    ls: SelfDebugServer, target: FunctionTarget, disk_text: str | None = None
) -> FunctionSnapshot:
    """The target function in the editor's current text (InvalidParams when there is none, when
    the file is outside the workspace, or when it is not open and `disk_text` was not read for it
    off the event loop: see `resolve_async`)."""
    from selfdebug.instrument import locate_at

    file = workspace_files.locate(ls, target.uri)
    path = file.path
    document = ls.workspace.text_documents.get(file.uri)
    if document is None:
        if disk_text is None:
            raise JsonRpcInvalidParams(f"{path} is not open in the editor")
        document = TextDocument(file.uri, disk_text, position_codec=ls.workspace.position_codec)
    source = document.source
    qualname = target.qualname
    if not qualname and target.position is not None:
        position = Position(line=target.position.line, character=target.position.character)
        line, column = utf16_position(document, position)
        location = locate_at(source, line, column)
        if location is None:
            raise JsonRpcInvalidParams(f"no function at {path}:{line + 1}:{position.character}")
        qualname = location.qualname
    try:
        return take_snapshot(file.uri, path, document.version, source, qualname or "")
    except Exception as error:
        raise JsonRpcInvalidParams(f"no function `{qualname}` in {path}: {error}")


async def resolve_async(ls: SelfDebugServer, target: FunctionTarget) -> FunctionSnapshot:
    """`resolve`, reading a file the editor does not have open in a worker thread."""
    file = workspace_files.locate(ls, target.uri)
    text = None
    if not workspace_files.is_open(ls, file.uri):
        text = await ls.in_worker(workspace_files.read_unopened, file.path)
    return resolve(ls, target, disk_text=text)


async def current_text(ls: SelfDebugServer, uri: str, path: Path) -> tuple[int | None, str]:
    """(version, text) of a document now: the editor's, else the file's (read off the loop)."""
    document = ls.workspace.text_documents.get(uri)
    if document is not None:
        return document.version, document.source
    return None, await ls.in_worker(workspace_files.read_unopened, path)
