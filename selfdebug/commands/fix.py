"""Self-debug one function with a model and propose a fix as a diff.

    selfdebug fix path/mod.py::func [--test NODEID ...] [--mode auto] [--write]

Finds the function's tests when none are named, runs the debugging loop in a sealed shadow copy,
prints the diff, the model's explanation and the evidence ("passes N/M chosen, K/L wider").
The file is written only with --write, and only if it did not change meanwhile: a fix found
but not written (the file changed, or cannot be written) exits 4 with the reason.
--json prints one JSON object on stdout instead (fix_json.py); --save-patch FILE saves the fix
for `selfdebug apply FILE` (patch_file.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfdebug.commands.fix_delivery import budget_spent, deliver, fail, read_text
from selfdebug.commands.fix_progress import run_with_progress
from selfdebug.commands.fix_report import report
from selfdebug.commands.isolation_options import (
    add_isolation_arguments,
    runner_settings_from,
    warn_about,
)
from selfdebug.commands.model_options import add_model_arguments, backend_settings_from
from selfdebug.exit_codes import ExitCode
from selfdebug.server.engine.types import DEFAULT_TIME_BUDGET_S, MODES, Mode

if TYPE_CHECKING:
    from selfdebug.commands.fix_outcome import FixOutcome
    from selfdebug.server.backends.base import Backend
    from selfdebug.server.engine.types import DebugRequest


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        nargs="?",
        help="the function to debug: path/to/module.py::qualname; without it, the failing "
        "--test is the starting point: the project's functions are ranked for its failure and "
        "the top suspects repaired in order",
    )
    parser.add_argument(
        "--test", action="append", default=[], metavar="NODEID", help="a chosen test (repeat)"
    )
    parser.add_argument(
        "--time-budget",
        type=float,
        default=DEFAULT_TIME_BUDGET_S,
        metavar="S",
        help="seconds for the whole self-debug: the function's session, or without a target "
        "the repair of all the suspects together; once spent, it ends with what it has "
        f"(default {DEFAULT_TIME_BUDGET_S:g})",
    )
    # the walk's budget's earlier name
    parser.add_argument("--budget", dest="time_budget", type=float, help=argparse.SUPPRESS)
    wider = parser.add_mutually_exclusive_group()
    wider.add_argument(
        "--wider-test",
        action="append",
        default=None,
        metavar="NODEID",
        help="a regression-guard test, never shown to the model (repeat; default: the whole "
        "test files of the chosen tests)",
    )
    wider.add_argument(
        "--no-wider",
        dest="wider_test",
        action="store_const",
        const=[],
        help="no regression guard beyond the chosen tests",
    )
    parser.add_argument("--mode", choices=MODES, default="auto")
    add_model_arguments(parser)
    parser.add_argument("--max-turns", type=int, default=10, metavar="N")
    parser.add_argument("--samples", type=int, default=1, metavar="N")
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        metavar="N",
        help="per model call (default: per step, 768 for a fix, 1536 with reasoning)",
    )
    parser.add_argument(
        "--model-edits",
        type=float,
        default=90.0,
        metavar="S",
        help="auto: the cap in seconds on the model's local edits at the suspicious lines when "
        "the edit search finds nothing, longer where the model writes slower (default 90; 0: off)",
    )
    parser.add_argument("--test-timeout", type=float, default=10.0, metavar="S")
    add_isolation_arguments(parser)
    parser.add_argument("--prompts-dir", default=None, metavar="DIR", help="template overrides")
    parser.add_argument("--transcript", default=None, metavar="PATH", help="JSON-lines record")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--write", action="store_true", help="apply the fix to the file")
    output.add_argument("--diff", action="store_true", help="only print the diff (the default)")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object on stdout (the verdict, exit code, diff, evidence, ...); "
        "the rest goes to stderr",
    )
    parser.add_argument(
        "--save-patch",
        type=Path,
        default=None,
        metavar="FILE",
        help="save the fix found to FILE, for `selfdebug apply FILE` (no new session)",
    )


def _parse_target(target: str) -> tuple[Path, str] | str:
    path, sep, qualname = target.rpartition("::")
    if not sep or not path or not qualname:
        return f"expected path/to/module.py::function, got {target!r}"
    return Path(path), qualname


def build_request_from_args(args: argparse.Namespace) -> DebugRequest | str:
    """The DebugRequest, or a user-facing message for a usage/input error."""
    from selfdebug.server.engine import RequestError, build_request
    from selfdebug.server.engine.request import target_file_problem
    from selfdebug.server.engine.target import TargetNotFound, locate
    from selfdebug.server.runner.safe_read import UnreadableFile

    parsed = _parse_target(args.target)
    if isinstance(parsed, str):
        return parsed
    path, qualname = parsed
    problem = target_file_problem(path)
    if problem:
        return problem
    try:
        locate(read_text(path), qualname)
    except TargetNotFound as error:
        return f"{path}: {error}"
    except UnreadableFile as error:  # says "cannot read PATH: why" itself
        return error.strerror or str(error)
    except (OSError, SyntaxError, UnicodeDecodeError) as error:
        return f"cannot read {path}: {error}"
    options = session_options(args)
    if isinstance(options, str):
        return options
    try:
        return build_request(
            path,
            qualname,
            tests=args.test,
            wider_tests=args.wider_test,
            runner_settings=runner_settings_from(args, args.test_timeout),
            **options,
        )
    except RequestError as error:
        return str(error)


def session_options(args: argparse.Namespace) -> dict[str, Any] | str:
    """The session's settings from the flags (DebugRequest fields), or a usage error."""
    if (
        args.max_turns < 1
        or args.samples < 1
        or (args.max_tokens is not None and args.max_tokens < 1)
    ):
        return "--max-turns, --samples and --max-tokens must be at least 1"
    if not args.stall_limit > 0:
        return "--stall-limit must be more than 0 seconds"
    if not args.call_deadline >= 0:
        return "--call-deadline must be 0 (none) or more seconds"
    if not args.model_edits >= 0:
        return "--model-edits must be 0 (off) or more seconds"
    if not args.time_budget > 0:
        return "--time-budget must be more than 0 seconds"
    return {
        "mode": args.mode,
        "max_turns": args.max_turns,
        "samples": args.samples,
        "max_tokens": args.max_tokens,
        "model_stall_s": args.stall_limit,
        "model_call_deadline_s": args.call_deadline,
        "model_edits_s": args.model_edits,
        "test_timeout_s": args.test_timeout,
        "time_budget_s": args.time_budget,
        "transcript_path": Path(args.transcript).resolve() if args.transcript else None,
        "prompts_dir": Path(args.prompts_dir) if args.prompts_dir else None,
    }


def session_backend(args: argparse.Namespace, mode: Mode) -> Backend:
    """The model the flags name; none for a mode that makes no model call (`search`: no model
    loaded). Raises BackendConfigError for bad settings."""
    from selfdebug.server.engine.modes import strategy_of

    if not strategy_of(mode).uses_model:
        from selfdebug.server.backends.no_model import NoModelBackend

        return NoModelBackend()
    from selfdebug.server.backends.factory import make_backend

    return make_backend(backend_settings_from(args))


def main(args: argparse.Namespace) -> int:
    from selfdebug.commands.fix_outcome import FixOutcome

    outcome = FixOutcome()
    if args.json:
        from selfdebug.commands.fix_json import printing_json

        return printing_json(outcome, lambda: _main(args, outcome))
    return _main(args, outcome)


def _main(args: argparse.Namespace, outcome: FixOutcome) -> int:
    from rich.console import Console
    from rich.markup import escape

    from selfdebug.commands.patch_file import save_fix
    from selfdebug.server.backends.base import BackendConfigError
    from selfdebug.server.runner import ProjectRunner
    from selfdebug.server.runner.sandbox import choose_isolation

    if args.save_patch is not None and not args.save_patch.parent.is_dir():
        return fail(f"--save-patch: no such folder: {args.save_patch.parent}")
    try:  # before discovery runs the project's code, and before the model loads
        choose_isolation(args.isolation, require_sandbox=args.require_sandbox)
    except RuntimeError as error:
        return fail(str(error))
    if args.target is None:
        if not args.test:
            return fail("give the function (path/to/module.py::qualname) or a failing --test")
        from selfdebug.commands.fix_failure import main as from_failure

        outcome.form = "failure"
        options = session_options(args)
        if isinstance(options, str):
            return fail(options)
        return from_failure(args, outcome, options, lambda: session_backend(args, args.mode))
    request = build_request_from_args(args)
    if isinstance(request, str):
        return fail(request)
    console = Console(stderr=True)
    try:
        runner = ProjectRunner(
            request.target.project_root, runner_settings_from(args, args.test_timeout)
        )
    except RuntimeError as error:
        return fail(str(error))
    warn_about("fix", runner, interpreter=True)
    try:
        backend = session_backend(args, request.mode)
    except BackendConfigError as error:
        runner.close()
        return fail(str(error))
    target = request.target
    original = outcome.read(target.file)
    console.print(
        escape(
            f"selfdebug: debugging {target.qualname} in {target.file} with "
            f"{len(target.tests)} test(s) ({', '.join(target.tests[:3])}"
            f"{', ...' if len(target.tests) > 3 else ''}), mode {request.mode}, "
            f"backend {backend.name}"
        ),
        soft_wrap=True,  # a test id is never broken across lines
    )
    if target.tests_found_by:  # which tests, found how (before the model is called)
        from rich.markup import escape

        console.print(f"selfdebug: tests: {escape(target.tests_found_by)}")
    try:
        result = run_with_progress(request, backend, console, runner)
    finally:
        backend.close()
        runner.close()
    report(result, request, isolation=runner.isolation)
    outcome.shown(request, result)
    code = deliver(result, request, original, write=args.write)
    if result.stop_reason == "time_budget":
        budget_spent(request.budget.time_budget_s)
    outcome.written = args.write and code == ExitCode.OK and result.success
    return save_fix(outcome, args.save_patch, code) if args.save_patch else code
