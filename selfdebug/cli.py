"""The `selfdebug` command line: a table of subcommands, each owned by its own module.

Every command module exposes `add_arguments(parser)` and `main(args) -> int` and must be cheap to
import (heavy imports such as llama_cpp happen inside functions), so `selfdebug --help` stays fast.
Exit codes: 0 success, 1 the job ran but did not succeed (tests fail, no fix), 2 usage/input error,
128 + the signal when SIGINT, SIGTERM or SIGHUP ended it (selfdebug/exit_codes.py).
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
from collections.abc import Sequence

from selfdebug import exit_codes
from selfdebug.exit_codes import ExitCode, for_signal

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "instrument": (
        "selfdebug.commands.instrument",
        "print a file with probes inserted in one function",
    ),
    "strip": ("selfdebug.commands.strip", "print a file with every inserted probe removed"),
    "test": ("selfdebug.commands.test", "run the tests of a function in a sealed shadow copy"),
    "fix": ("selfdebug.commands.fix", "self-debug a function with a model and propose a diff"),
    "apply": (
        "selfdebug.commands.apply",
        "write a fix saved by `fix --save-patch`, if its files did not change since",
    ),
    "demo": (
        "selfdebug.commands.demo",
        "debug a small buggy project end to end with the embedded model",
    ),
    "serve": ("selfdebug.commands.serve", "run the language server (stdio, or --tcp)"),
    "bench": (
        "selfdebug.commands.bench",
        "benchmarks that print numbers (see `selfdebug bench -h`)",
    ),
    "models": ("selfdebug.commands.models", "list the known local models and their state"),
    "doctor": ("selfdebug.commands.doctor", "check this machine: sandbox, model, binding, GPU"),
    "editor-path": (
        "selfdebug.commands.editor_path",
        "print the folder of the Neovim plugin installed with selfdebug",
    ),
}
# Their --help ends with the exit-code table (the codes a script checks).
SHOW_EXIT_CODES = frozenset({"test", "fix", "apply", "doctor"})
# The commands that make run folders (server/runner/workdirs.py): their start removes the ones
# a killed run left.
RUN_FOLDERS = ("test", "fix", "demo", "serve", "doctor", "bench")
# Started by selfdebug itself, not listed in --help.
INTERNAL_COMMANDS: dict[str, str] = {"model-worker": "selfdebug.commands.model_worker"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="selfdebug",
        description=__doc__.splitlines()[0],
        epilog=exit_codes.epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from selfdebug import __version__

    parser.add_argument("--version", action="version", version=f"selfdebug {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(module_name)
        cmd = sub.add_parser(
            name,
            help=help_text,
            description=module.__doc__,
            epilog=exit_codes.epilog() if name in SHOW_EXIT_CODES else None,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(cmd)
        cmd.set_defaults(_main=module.main)
    for name, module_name in INTERNAL_COMMANDS.items():
        module = importlib.import_module(module_name)
        cmd = sub.add_parser(name, description=module.__doc__)
        module.add_arguments(cmd)
        cmd.set_defaults(_main=module.main)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_main", None):
        parser.print_help(sys.stderr)
        return ExitCode.USAGE
    from selfdebug.commands.project_defaults import apply_project_defaults

    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if apply_project_defaults(commands.choices[args.command], args):  # [tool.selfdebug]
        args = parser.parse_args(argv)  # the flags given win over the project's file
    if args.command in RUN_FOLDERS:
        from selfdebug.server.runner.workdirs import remove_stale

        remove_stale()  # what a killed run left behind; never fails the command
    from selfdebug.commands import interrupts

    try:
        if args.command not in COMMANDS:  # an internal one: its parent stops it
            return int(args._main(args))
        with interrupts.stopping():  # SIGTERM and SIGHUP end a command the way Ctrl-C does
            code = int(args._main(args))
    except KeyboardInterrupt as stop:
        print("selfdebug: interrupted", file=sys.stderr)
        return for_signal(getattr(stop, "signum", signal.SIGINT))
    except Exception as error:  # a bug of ours: one line, the traceback saved (exit 5)
        from selfdebug.internal_error import report_internal_error

        return report_internal_error(
            error,
            command=args.command,
            argv=sys.argv if argv is None else ["selfdebug", *argv],
            transcript=getattr(args, "transcript", None),
            with_traceback=args.command in INTERNAL_COMMANDS,  # its stderr is a log we read
        )
    signum = interrupts.received()  # one that cancelled the job the command then ended
    return code if signum is None else for_signal(signum)
