"""`[tool.selfdebug]` in the project's pyproject.toml as the defaults of a command's flags, so a
flag given on the command line wins over the file, and the file over the built-in default
(server/lsp/project_settings.py reads and checks the file; the server reads the same one).

The project is the one the command names: the function's file (`path/mod.py::f`), else the
first `--test`'s, else the current folder's."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# A setting's name -> the flag (its argparse dest) that sets it, per command where they differ.
FLAGS: dict[str, dict[str, str]] = {
    "fix": {
        "mode": "mode",
        "max_turns": "max_turns",
        "samples": "samples",
        "test_timeout": "test_timeout",
        "model_edits_seconds": "model_edits",
        "time_budget_seconds": "time_budget",
        "backend": "backend",
        "model_path": "model",
        "endpoint_url": "endpoint",
        "model_name": "model_name",
        "model_stall_seconds": "stall_limit",
        "model_call_deadline": "call_deadline",
        "lookup_decoding": "lookup_decoding",
        "isolation": "isolation",
        "require_sandbox": "require_sandbox",
    },
    "test": {
        "test_timeout": "timeout",
        "isolation": "isolation",
        "require_sandbox": "require_sandbox",
    },
}


def project_of(args: argparse.Namespace) -> Path:
    """The project root of the command's target."""
    from selfdebug.server.runner import cli_boundary, find_project_root
    from selfdebug.server.runner.results import nodeid_file

    target = getattr(args, "target", None)
    tests = getattr(args, "test", None) or []
    if target and "::" in target:
        start = Path(target.rpartition("::")[0])
    elif tests:
        start = Path(nodeid_file(tests[0]))
    else:
        return Path.cwd()
    return find_project_root(start.resolve(), cli_boundary(start))


def apply_project_defaults(command: argparse.ArgumentParser, args: argparse.Namespace) -> bool:
    """Set `command`'s flag defaults from the project's file; whether any was set (then parse
    again). Ignored keys are told on stderr, once."""
    flags = FLAGS.get(args.command)
    if not flags:
        return False
    from selfdebug.server.lsp.project_settings import read_project_settings

    found = read_project_settings(project_of(args))
    for problem in found.problems:
        print(f"selfdebug {args.command}: pyproject.toml: {problem}", file=sys.stderr)
    defaults = {flags[name]: value for name, value in found.values.items() if name in flags}
    if defaults:
        command.set_defaults(**defaults)
    return bool(defaults)
