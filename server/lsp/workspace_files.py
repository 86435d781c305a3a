"""Which files a command may touch: canonical URIs inside the workspace, read safely.

Why: a command's `uri` comes from the client (or from anything that can reach a TCP server), so
`file:///ws/a/../b.py` must mean the document the editor has open as `file:///ws/b.py` (or its
edit carries `version: null` and a range computed from disk), a file outside every workspace
folder is refused with a message that says so, and a file the editor does not have open is read
off the event loop as a regular file with a size cap (a FIFO or `/dev/stdin` would freeze the
server or steal its messages).

The workspace folder is also the project's boundary: the project root is the nearest marker
inside it, else the folder itself, never above it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path, to_fs_path

from selfdebug.server.runner.source_files import read_source_text

if TYPE_CHECKING:
    from selfdebug.server.lsp.server import SelfDebugServer


@dataclass(frozen=True)
class WorkspaceFile:
    uri: str  # canonical: the open document's URI when the editor has it open
    path: Path  # normalized, not resolved (a symlinked path keeps the name the user sees)
    folder: Path | None  # the workspace folder holding it; None when the client named none


def workspace_folders(ls: SelfDebugServer) -> list[Path]:
    uris = [f.uri for f in ls.workspace.folders.values()]
    if not uris and ls.workspace.root_uri:
        uris = [ls.workspace.root_uri]
    paths = [to_fs_path(uri) for uri in uris]
    return [Path(os.path.normpath(p)) for p in paths if p]


def locate(ls: SelfDebugServer, uri: str) -> WorkspaceFile:
    """The canonical form of `uri`, or InvalidParams when it is not a local file inside a
    workspace folder."""
    text = to_fs_path(uri)
    if not text or not os.path.isabs(text):
        raise JsonRpcInvalidParams(f"not a local file: {uri}")
    path = Path(os.path.normpath(text))
    real = Path(os.path.realpath(path))
    folders = workspace_folders(ls)
    holding = [
        f for f in folders if _under(path, f) or _under(real, Path(os.path.realpath(f)))
    ]  # fmt: skip
    if folders and not holding:
        shown = ", ".join(str(f) for f in folders)
        raise JsonRpcInvalidParams(
            f"{path} is outside the workspace ({shown}); selfdebug only works on files in the "
            "folders you opened"
        )
    folder = max(holding, key=lambda f: len(f.parts)) if holding else None
    canonical = from_fs_path(str(path)) or uri
    if canonical not in ls.workspace.text_documents:
        resolved = from_fs_path(str(real))
        if resolved in ls.workspace.text_documents:
            canonical, path = resolved, real
    return WorkspaceFile(canonical, path, folder)


def is_open(ls: SelfDebugServer, uri: str) -> bool:
    return uri in ls.workspace.text_documents


def read_unopened(path: Path) -> str:
    """A file the editor does not have open (blocking: call it in a worker thread)."""
    try:
        return read_source_text(path, keep_line_endings=True)  # its BOM, its declaration
    except OSError as error:
        raise JsonRpcInvalidParams(str(error)) from error


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
