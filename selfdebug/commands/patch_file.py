"""A saved fix: `selfdebug fix --save-patch FILE` writes it, `selfdebug apply FILE` applies it
without a new session. A versioned JSON document of our own:

    {"selfdebug_patch": 1, "qualname": "sum_to", "functions": ["calc.py::sum_to"],
     "evidence": "passes 2/2 chosen, ...", "diff": "...",
     "files": [{"path": "calc.py", "sha256": "...", "content_base64": "...", "diff": "..."}]}

Why not a unified diff: a diff applies by its context, on whatever the file has become, and a
fix is proven only on the text its session ran. The document holds each file's new bytes
exactly as `fix --write` writes them (its encoding, BOM and line endings:
`source_files.encode_over`) and the sha256 of the bytes the session started from; `apply`
writes every file only over those bytes, all of them or none. Paths are relative to the project
root and must stay inside it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from selfdebug.exit_codes import ExitCode
from selfdebug.server.engine.diffing import unified_diff
from selfdebug.server.runner.safe_read import read_regular
from selfdebug.server.runner.source_files import decode_source, encode_over

if TYPE_CHECKING:
    from selfdebug.commands.fix_outcome import FixOutcome

VERSION = 1
KEY = "selfdebug_patch"  # the document's kind and version: {"selfdebug_patch": 1, ...}


class PatchError(ValueError):
    """A document that is no saved fix we can apply: not our JSON, another version, a field
    missing or mistyped, a path outside the project."""


@dataclass(frozen=True)
class PatchedFile:
    path: str  # relative to the project root, "/"-separated, inside it
    sha256: str  # of the file's bytes as the session read them (hex)
    data: bytes  # the file's new bytes, as `fix --write` writes them
    diff: str = ""  # for a human; `apply` ignores it


@dataclass(frozen=True)
class SavedPatch:
    files: tuple[PatchedFile, ...]
    qualname: str = ""  # the function the fix is for (of two, the second)
    functions: tuple[str, ...] = ()  # every function it changes, "path::qualname"
    evidence: str = ""  # "passes N/M chosen, K/L wider" when it was found

    @property
    def diff(self) -> str:
        return "".join(f.diff for f in self.files)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def relative(path: Path, root: Path) -> str:
    """`path` under `root`, "/"-separated, as the document and the JSON name it."""
    return Path(path).resolve().relative_to(root.resolve()).as_posix()


def make_patch(
    root: Path,
    originals: dict[Path, bytes],
    fix_files: dict[Path, str],
    functions: list[tuple[Path, str]],
    evidence: str,
) -> SavedPatch:
    """The fix `fix_files` (file -> new text) over each file's `originals` bytes. Raises
    UnicodeEncodeError when a new text holds a character its file's encoding has not."""
    files = []
    for path, text in fix_files.items():
        before = originals[path]
        name = relative(path, root)
        diff = unified_diff(decode_source(before, errors="replace")[0], text, name)
        files.append(PatchedFile(name, sha256(before), encode_over(before, text), diff))
    targets = tuple(f"{relative(file, root)}::{qualname}" for file, qualname in functions)
    qualname = functions[-1][1] if functions else ""
    return SavedPatch(tuple(files), qualname, targets, evidence)


def dumps(patch: SavedPatch) -> str:
    document: dict[str, Any] = {
        KEY: VERSION,
        "qualname": patch.qualname,
        "functions": list(patch.functions),
        "evidence": patch.evidence,
        "diff": patch.diff,
        "files": [
            {
                "path": f.path,
                "sha256": f.sha256,
                "content_base64": base64.b64encode(f.data).decode("ascii"),
                "diff": f.diff,
            }
            for f in patch.files
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def loads(text: str) -> SavedPatch:
    """The saved fix in `text`. Raises PatchError for anything else."""
    try:
        document = json.loads(text)
    except ValueError as error:
        raise PatchError(f"not a saved fix (not JSON: {error})") from None
    if not isinstance(document, dict) or KEY not in document:
        raise PatchError(f'not a saved fix (no "{KEY}" key)')
    if document[KEY] != VERSION:
        raise PatchError(
            f"a saved fix of version {document[KEY]!r}; this selfdebug reads version {VERSION}"
        )
    entries = document.get("files")
    if not isinstance(entries, list) or not entries:
        raise PatchError('a saved fix needs a non-empty "files" list')
    files = [_file(entry) for entry in entries]
    if len({f.path for f in files}) != len(files):
        raise PatchError("a saved fix names a file twice")
    functions = document.get("functions", [])
    if not isinstance(functions, list) or not all(isinstance(f, str) for f in functions):
        raise PatchError('"functions" must be a list of strings')
    return SavedPatch(
        tuple(files),
        qualname=_text(document, "qualname"),
        functions=tuple(functions),
        evidence=_text(document, "evidence"),
    )


def _text(entry: dict[str, Any], key: str, default: str = "") -> str:
    value = entry.get(key, default)
    if not isinstance(value, str):
        raise PatchError(f'"{key}" must be a string')
    return value


def _file(entry: object) -> PatchedFile:
    if not isinstance(entry, dict):
        raise PatchError("each of a saved fix's files must be an object")
    for key in ("path", "sha256", "content_base64"):
        if not isinstance(entry.get(key), str):
            raise PatchError(f'each of a saved fix\'s files needs "{key}" (a string)')
    path = checked_path(entry["path"])
    digest = entry["sha256"].lower()
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise PatchError(f"{path}: sha256 must be 64 hex digits")
    try:
        data = base64.b64decode(entry["content_base64"], validate=True)
    except binascii.Error as error:
        raise PatchError(f"{path}: content_base64 is not base64 ({error})") from None
    return PatchedFile(path, digest, data, _text(entry, "diff"))


def checked_path(path: str) -> str:
    """`path` when it is relative and stays inside the project ("a/b.py"); PatchError for an
    absolute path, a `..` part or an empty one."""
    pure = PurePosixPath(path)
    if not path or "\\" in path or pure.is_absolute() or ".." in pure.parts or not pure.parts:
        raise PatchError(f"{path!r}: a saved fix's paths must be relative and inside the project")
    return pure.as_posix()


@dataclass
class ApplyPlan:
    """What applying a saved fix under a root comes to, every file read before any is written."""

    writes: list[tuple[Path, bytes, bytes]] = field(default_factory=list)  # file, now, new
    applied: list[str] = field(default_factory=list)  # already hold the fix's bytes
    changed: list[str] = field(default_factory=list)  # neither: changed since the fix was saved
    unreadable: list[str] = field(default_factory=list)  # "path: why" (missing, not a file)


def plan(patch: SavedPatch, root: Path) -> ApplyPlan:
    """Each file of `patch` under `root`, checked against the bytes the fix was made from.
    Raises PatchError for a path that leaves the root through a link."""
    found = ApplyPlan()
    top = root.resolve()
    for patched in patch.files:
        target = root / patched.path
        if not target.resolve().is_relative_to(top):
            raise PatchError(f"{patched.path}: leaves the project {root} (a link)")
        try:
            now = read_regular(target)
        except OSError as error:
            found.unreadable.append(f"{patched.path}: {error.strerror or error}")
            continue
        if sha256(now) == patched.sha256:
            found.writes.append((target, now, patched.data))
        elif now == patched.data:
            found.applied.append(patched.path)
        else:
            found.changed.append(patched.path)
    return found


def write_all(writes: list[tuple[Path, bytes, bytes]]) -> None:
    """Each file's new bytes written in place (as `fix --write` does: a link stays a link),
    all or none: when one cannot be written, those before it and it get their bytes back and
    the OSError is raised."""
    for index, (target, _now, new) in enumerate(writes):
        try:
            target.write_bytes(new)
        except OSError:
            for earlier, now, _new in writes[: index + 1]:
                try:
                    earlier.write_bytes(now)
                except OSError:
                    pass  # the error raised below names the first failure
            raise


def save_fix(outcome: FixOutcome, path: Path, code: int) -> int:
    """`fix --save-patch FILE`: the fix the run found saved to `path`; the exit code `code`, or
    NOT_WRITTEN (the reason on stderr) when it could not be saved. Nothing when there is no
    fix."""
    from selfdebug.commands.fix_report import evidence_line

    result, root = outcome.result, outcome.root
    if result is None or root is None or not result.success or not outcome.fix_files:
        return code
    try:
        patch = make_patch(
            root, outcome.originals, outcome.fix_files, outcome.functions, evidence_line(result)
        )
        path.write_text(dumps(patch), encoding="utf-8")
    except (OSError, UnicodeEncodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        print(f"selfdebug fix: could not save the fix to {path}: {reason}", file=sys.stderr)
        return ExitCode.NOT_WRITTEN if code == ExitCode.OK else code
    outcome.patch = path
    print(f"Fix saved to {path}; `selfdebug apply {path}` writes it.")
    return code
