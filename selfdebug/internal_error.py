"""A bug of selfdebug's, told in one line (exit 5): the user sees what failed and where its
traceback was saved, never a raw traceback between the command's output.

Why: a traceback on the terminal reads like the user's own error and hides the command's
output; a saved one can still be attached to a report. `SELFDEBUG_DEBUG=1` prints it as well.
Where: $SELFDEBUG_CACHE_DIR/errors, else $XDG_CACHE_HOME/selfdebug/errors, else
~/.cache/selfdebug/errors (the user's cache folder, like the discovery cache); a temporary
folder when that cannot be written.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import time
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path

from selfdebug.exit_codes import ExitCode

DEBUG_ENV = "SELFDEBUG_DEBUG"
CACHE_DIR_ENV = "SELFDEBUG_CACHE_DIR"  # the same folder as the discovery cache's


def errors_dir(env: Mapping[str, str] = os.environ) -> Path:
    override = env.get(CACHE_DIR_ENV)
    if override:
        return Path(override).expanduser() / "errors"
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "selfdebug" / "errors"


def save_traceback(error: BaseException, argv: Sequence[str], command: str) -> Path | str:
    """The file the traceback was written to, or why it could not be written."""
    from selfdebug import __version__

    text = "".join(
        [
            f"selfdebug {__version__}, Python {platform.python_version()}, {platform.platform()}\n",
            f"argv: {list(argv)}\n\n",
            *traceback.format_exception(error),
        ]
    )
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = f"{command or 'selfdebug'}-{stamp}-{os.getpid()}.txt"
    problems = []
    for folder in (errors_dir(), Path(tempfile.gettempdir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / name
            path.write_text(text, encoding="utf-8")
            return path
        except OSError as problem:
            problems.append(f"{folder}: {problem.strerror or problem}")
    return "; ".join(problems)


def report_internal_error(
    error: BaseException,
    *,
    command: str,
    argv: Sequence[str],
    transcript: str | None = None,
    with_traceback: bool = False,
) -> int:
    """Say in one line that a bug of ours ended `command`, save the traceback; exit 5.
    `with_traceback`: print it too (a process of ours whose stderr is a log, not a terminal).
    `transcript` is named when the command wrote one before it failed."""
    first = (str(error).strip().splitlines() or [""])[0][:200]
    what = f"{type(error).__name__}: {first}" if first else type(error).__name__
    saved = save_traceback(error, argv, command)
    where = (
        f"traceback saved to {saved}"
        if isinstance(saved, Path)
        else f"traceback not saved ({saved})"
    )
    line = f"selfdebug{' ' + command if command else ''}: internal error ({what}); {where}"
    if transcript and Path(transcript).is_file():
        line += f"; transcript: {transcript}"
    if with_traceback or os.environ.get(DEBUG_ENV, "") not in ("", "0"):
        traceback.print_exception(error, file=sys.stderr)
    print(line + "; this is a bug of selfdebug's, please report it", file=sys.stderr)
    return ExitCode.INTERNAL
