"""The "how are tests isolated" flags shared by every command that runs tests (`test`, `fix`;
`demo` and `bench` can add them the same way), and the stderr warning when tests run without a
sandbox. One place, so each command says the same thing the same way.

    --isolation auto|bwrap|rlimits   --require-sandbox   --trust-project   --interpreter PYTHON

`--trust-project` lets the project's own `.venv/bin/python` (also venv/, env/, .env/) run; without
it selfdebug's own Python runs the tests and says why. `--require-sandbox` refuses the rlimits
fallback (exit 2 with how to install bubblewrap).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selfdebug.server.runner import ProjectRunner, RunnerSettings


def add_isolation_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--isolation",
        choices=("auto", "bwrap", "rlimits"),
        default="auto",
        help="auto: bubblewrap when it works here, else rlimits (not a sandbox)",
    )
    parser.add_argument(
        "--require-sandbox",
        action="store_true",
        help="refuse to run tests without bubblewrap",
    )
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="let the project's own .venv/venv/env/.env python run (it is the repository's code)",
    )
    parser.add_argument(
        "--interpreter",
        default=None,
        metavar="PYTHON",
        help="the Python that runs the tests (default: the activated $VIRTUAL_ENV, else the "
        "project's .venv/venv with --trust-project, else selfdebug's own, without its plugins)",
    )


def runner_settings_from(args: argparse.Namespace, test_timeout_s: float) -> RunnerSettings:
    from selfdebug.server.runner import RunnerSettings

    return RunnerSettings(
        interpreter=args.interpreter,
        # an interpreter typed on the command line is the user's own choice
        trust_project=args.trust_project or bool(args.interpreter),
        isolation=args.isolation,
        require_sandbox=args.require_sandbox,
        test_timeout_s=test_timeout_s,
    )


def warn_about(command: str, runner: ProjectRunner, *, interpreter: bool = False) -> None:
    """The fallback (and, with `interpreter`, an untrusted project's interpreter passed over) on
    stderr, where a user sees it even when stdout is JSON or a diff."""
    for message in (runner.isolation_warning, runner.interpreter_note if interpreter else ""):
        if message:
            print(f"selfdebug {command}: warning: {message}", file=sys.stderr)
