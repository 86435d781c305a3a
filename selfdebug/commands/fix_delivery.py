"""How a `selfdebug fix` session ends on the command line, in both forms (a function, or a
failing test: fix_failure.py): the exit code, and the fix written when asked and its file did
not change meanwhile.

Why its own module: both forms deliver alike, and fix.py (the command) imports the failure form;
the form importing fix.py back made a circle.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from selfdebug.commands.fix_report import last_lines
from selfdebug.exit_codes import ExitCode

if TYPE_CHECKING:
    from selfdebug.server.engine.types import DebugRequest, DebugResult


def fail(message: str) -> int:
    print(f"selfdebug fix: {message}", file=sys.stderr)
    return ExitCode.USAGE


def read_text(path: Path) -> str:
    """The file's text as Python decodes it (its BOM, its declared encoding; line endings kept)."""
    from selfdebug.server.runner.source_files import read_source

    return read_source(path)[0]


def write_text(path: Path, text: str) -> None:
    """`text` written over the file as the file is encoded (its encoding, its BOM); the text's
    line endings as they are: the bytes outside the fix stay the file's."""
    from selfdebug.server.runner.source_files import rewrite_source

    rewrite_source(path, text)


def budget_spent(budget_s: float | None, untried: Sequence[str] = ()) -> None:
    """The line that says the time budget ended the self-debug, and how to give it more."""
    left = f"; suspects not tried: {', '.join(untried)}" if untried else ""
    print(
        f"Time budget spent: the {budget_s or 0:g} s ran out before a fix was found; what it "
        f"found is shown above{left}. Give it more with --time-budget S."
    )


def session_failed(result: DebugResult) -> bool:
    """An error ended the session, or it asked the model and no call answered: not the same
    as "the model's answers fixed nothing" (exit 1)."""
    return result.stop_reason == "error" or (bool(result.failed_calls) and not result.model_calls)


def deliver(result: DebugResult, request: DebugRequest, original: str, *, write: bool) -> int:
    """The exit code for a finished session, and the fix written when asked and the file has
    not changed since `original` was read (else NOT_WRITTEN, the reason on stderr)."""
    if result.stop_reason == "already_passing":
        print("Nothing to fix: the chosen tests already pass.")
        return ExitCode.OK
    if result.stop_reason == "cancelled":
        print("Cancelled; the file was not changed.", file=sys.stderr)
        return ExitCode.INTERRUPTED
    if result.stop_reason == "error" and result.error.startswith(("cannot read", "the tests")):
        return fail(last_lines(result.error))
    if not result.success and session_failed(result):
        print("selfdebug fix: the session failed; the file was not changed.", file=sys.stderr)
        return ExitCode.SESSION_FAILED
    if not result.success:
        print("No candidate passes the chosen tests; the file was not changed.")
        return ExitCode.NO_FIX
    if write:
        assert result.fixed_file is not None
        path = request.target.file
        if read_text(path) != original:
            print(
                f"selfdebug fix: {path} changed during the session; not writing "
                "(the fix is shown above)",
                file=sys.stderr,
            )
            return ExitCode.NOT_WRITTEN
        try:
            write_text(path, result.fixed_file)
        except (OSError, UnicodeEncodeError) as error:  # read-only, immutable, a full disk
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            print(
                f"selfdebug fix: could not write {path}: {reason}; the fix is shown above",
                file=sys.stderr,
            )
            return ExitCode.NOT_WRITTEN
        print(f"Fix found and written to {path}.")
    else:
        print("Fix found. Run again with --write to apply it.")
    if result.transcript_path:
        print(f"Transcript: {result.transcript_path}")
    return ExitCode.OK
