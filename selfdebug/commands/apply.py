"""Apply a fix saved by `selfdebug fix --save-patch FILE`, without a new session.

    selfdebug apply FILE [--root DIR]

Every file the fix changes is checked first: it is written only if its bytes are still the ones
the session started from (their sha256 in FILE), and all of them or none are written. A file
changed since exits 4 ("run the session again"); a file that already holds the fix is left as
it is. Paths in FILE are relative to the project root: DIR, or the project of the current
directory (the nearest folder up with pyproject.toml, setup.py, .git, ...).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from selfdebug.exit_codes import ExitCode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("patch", metavar="FILE", help="a fix saved by `selfdebug fix --save-patch`")
    parser.add_argument(
        "--root",
        default=None,
        metavar="DIR",
        help="the project the fix's paths are relative to (default: the current directory's)",
    )


def _fail(message: str, code: int = ExitCode.USAGE) -> int:
    print(f"selfdebug apply: {message}", file=sys.stderr)
    return code


def main(args: argparse.Namespace) -> int:
    from selfdebug.commands.patch_file import PatchError, loads, plan, write_all
    from selfdebug.server.runner import find_project_root

    try:
        patch = loads(Path(args.patch).read_text(encoding="utf-8"))
    except OSError as error:
        return _fail(f"cannot read {args.patch}: {error.strerror or error}")
    except UnicodeDecodeError:
        return _fail(f"{args.patch}: not a saved fix (not UTF-8 text)")
    except PatchError as error:
        return _fail(f"{args.patch}: {error}")
    if args.root is not None and not Path(args.root).is_dir():
        return _fail(f"no such folder: {args.root}")
    root = Path(args.root) if args.root is not None else find_project_root(Path.cwd())
    try:
        found = plan(patch, root)
    except PatchError as error:
        return _fail(f"{args.patch}: {error}")
    if found.unreadable:
        where = "" if args.root is not None else " (run it in the fix's project, or give --root)"
        return _fail(f"cannot read {'; '.join(found.unreadable)} under {root}{where}")
    if found.changed:
        for path in found.changed:
            print(
                f"selfdebug apply: {path} changed since the fix was saved; run the session "
                "again (nothing was written)",
                file=sys.stderr,
            )
        return ExitCode.NOT_WRITTEN
    try:
        write_all(found.writes)
    except OSError as error:
        return _fail(
            f"could not write {error.filename or ''}: {error.strerror or error}; nothing was "
            "written",
            ExitCode.NOT_WRITTEN,
        )
    for target, _before, _after in found.writes:
        print(f"Fix written to {target.relative_to(root)}.")
    for path in found.applied:
        print(f"{path} already holds the fix; left as it is.")
    return ExitCode.OK
