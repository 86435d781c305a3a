"""The exit codes of every `selfdebug` command, once: each means one thing.

Scripts, CI jobs and the editors' install steps read them, so a code never changes meaning:
`fix` tells "no fix" (1) from "a fix found but not written" (4), and a bug of ours (5) from an
input the user can correct (2). A signal ends a run the way a shell reports it: 128 + the signal.
"""

from __future__ import annotations

import enum
import signal


class ExitCode(enum.IntEnum):
    OK = 0  # fixed, written when asked; the tests pass; every doctor check passed
    NO_FIX = 1  # the job ran and did not succeed: no candidate, tests fail, a doctor check failed
    USAGE = 2  # a usage or input error: a bad path, target, flag or setting
    SESSION_FAILED = 3  # an error ended the session: the model could not start or never answered
    NOT_WRITTEN = 4  # a fix was found but not written: the file changed on disk, or is unwritable
    INTERNAL = 5  # a bug of selfdebug's: a message and the transcript's path, never a traceback
    INTERRUPTED = 128 + signal.SIGINT  # 130: Ctrl-C (SIGTERM 143 and SIGHUP 129 likewise)


def for_signal(signum: int) -> int:
    """The code a shell gives a command its signal ended: 128 + the signal's number."""
    return 128 + int(signum)


# One line each for `--help` epilogs and the README's table (tests/test_exit_codes.py keeps the
# README's the same), from the table above.
DESCRIPTIONS: dict[int, str] = {
    ExitCode.OK: "fixed (written with --write), or nothing to fix (test: all pass; doctor: all ok)",
    ExitCode.NO_FIX: "no fix: no candidate passes the chosen tests (test: a test fails; doctor: a "
    "check fails)",
    ExitCode.USAGE: "usage or input error",
    ExitCode.SESSION_FAILED: "the session failed (the model could not start or never answered)",
    ExitCode.NOT_WRITTEN: "a fix was found but not written (file changed on disk, or unwritable)",
    ExitCode.INTERNAL: "internal error (a message and the transcript's path)",
    ExitCode.INTERRUPTED: "interrupted by Ctrl-C; 143 SIGTERM, 129 SIGHUP (128 + the signal)",
}


def epilog() -> str:
    """The exit-code table as `--help` prints it."""
    return "exit codes:\n" + "\n".join(
        f"  {int(code):>3}  {text}" for code, text in DESCRIPTIONS.items()
    )
