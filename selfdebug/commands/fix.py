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
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfdebug.commands.isolation_options import (
    add_isolation_arguments,
    runner_settings_from,
    warn_about,
)
from selfdebug.commands.model_options import add_model_arguments, backend_settings_from
from selfdebug.exit_codes import ExitCode
from selfdebug.server.engine.types import MODES, Mode

if TYPE_CHECKING:
    from selfdebug.commands.fix_outcome import FixOutcome
    from selfdebug.server.backends.base import Backend
    from selfdebug.server.engine.types import DebugRequest, DebugResult


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
        "--budget",
        type=float,
        default=None,
        metavar="S",
        help="without a target: seconds for the repair of all the suspects together "
        "(default: 15 minutes)",
    )
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
        help="auto: seconds for the model's local edits at the suspicious lines when the edit "
        "search finds nothing (default 90; 0: off)",
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


def _fail(message: str) -> int:
    print(f"selfdebug fix: {message}", file=sys.stderr)
    return ExitCode.USAGE


def _last_lines(message: str, count: int = 4) -> str:
    """Long tool output (pytest warnings before the real error): keep the end, which names it."""
    lines = [line for line in message.splitlines() if line.strip()]
    if len(lines) <= count:
        return message.strip()
    return lines[0] + " ...\n" + "\n".join(lines[-count:])


def _read(path: Path) -> str:
    """The file's text as Python decodes it (its BOM, its declared encoding; line endings kept)."""
    from selfdebug.server.runner.source_files import read_source

    return read_source(path)[0]


def _write(path: Path, text: str) -> None:
    """`text` written over the file as the file is encoded (its encoding, its BOM); the text's
    line endings as they are: the bytes outside the fix stay the file's."""
    from selfdebug.server.runner.source_files import rewrite_source

    rewrite_source(path, text)


def _parse_target(target: str) -> tuple[Path, str] | str:
    path, sep, qualname = target.rpartition("::")
    if not sep or not path or not qualname:
        return f"expected path/to/module.py::function, got {target!r}"
    return Path(path), qualname


def evidence_line(result: DebugResult) -> str:
    """ "passes N/M chosen, K/L wider": what a candidate is proven to do, never just "fixed"."""
    if result.chosen_after is None:
        return f"no candidate; the original passes {result.chosen_before} chosen"
    line = f"passes {result.chosen_after} chosen"
    if result.wider_after is not None:
        line += f", {result.wider_after} wider"
    if result.found_by:
        line += f"; found by {result.found_by}"
    line += f" (before: {result.chosen_before} chosen)"
    return f"{line}; {result.caveat}" if result.caveat else line


def suspicious_lines(result: DebugResult) -> list[str]:
    """The fault localization, as the editor shows it: "line 7: suspicious: run by 2/2 ..."."""
    shown = [f"  line {s.line}: {s.describe()}" for s in result.suspicious]
    if result.localization_note:
        shown.append(f"  ({result.localization_note})")
    return ["Suspicious lines:", *shown] if result.suspicious else []


def session_failed(result: DebugResult) -> bool:
    """An error ended the session, or it asked the model and no call answered: not the same
    as "the model's answers fixed nothing" (exit 1)."""
    return result.stop_reason == "error" or (bool(result.failed_calls) and not result.model_calls)


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
        locate(_read(path), qualname)
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
    return {
        "mode": args.mode,
        "max_turns": args.max_turns,
        "samples": args.samples,
        "max_tokens": args.max_tokens,
        "model_stall_s": args.stall_limit,
        "model_call_deadline_s": args.call_deadline,
        "model_edits_s": args.model_edits,
        "test_timeout_s": args.test_timeout,
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


def _run_with_progress(request: DebugRequest, backend, console, runner=None) -> DebugResult:
    """Run the session in a worker thread so a signal in the main thread (Ctrl-C, SIGTERM,
    SIGHUP) cancels it cleanly."""
    from rich.markup import escape
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from selfdebug.commands.interrupts import cancelling
    from selfdebug.server.cancel import CancelToken
    from selfdebug.server.engine import run_session

    cancel = CancelToken()
    outcome: dict[str, DebugResult | BaseException] = {}
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as bar:
        tasks = {0: bar.add_task("preparing", total=100)}

        def on_progress(event) -> None:
            """One bar per turn: a finished turn stays on screen with its last phase."""
            if event.turn not in tasks:
                for earlier in tasks.values():
                    bar.update(earlier, completed=100)
                tasks[event.turn] = bar.add_task(f"turn {event.turn}/{event.max_turns}", total=100)
            share = 100 / max(event.max_turns, 1)
            within = 100 * (event.percentage - (event.turn - 1) * share) / share
            bar.update(
                tasks[event.turn],
                completed=max(0, min(100, within)) if event.turn else 50,
                description=escape(event.message or event.phase),  # may name test ids
            )

        finished = threading.Event()

        def work() -> None:
            try:
                outcome["result"] = run_session(
                    request, backend, runner=runner, progress=on_progress, cancel=cancel
                )
            except BaseException as error:  # reported below, never a traceback
                outcome["error"] = error
            finally:
                finished.set()

        def on_signal(name: str) -> None:
            bar.update(tasks[max(tasks)], description=f"cancelling ({name})")

        # Ctrl-C, SIGTERM and SIGHUP cancel the session (a second one stops waiting for it).
        with cancelling(cancel, on_signal):
            threading.Thread(target=work, name="selfdebug-fix", daemon=True).start()
            while not finished.wait(0.2):
                pass
        for task in tasks.values():
            bar.update(task, completed=100)
    if "result" in outcome:
        result = outcome["result"]
        assert not isinstance(result, BaseException)
        return result
    # run_session reports every session problem in its result (stop "error", failed calls):
    # what escapes it is a bug of ours, for cli.main to report as one (exit 5, traceback saved)
    error = outcome.get("error")
    raise error if isinstance(error, BaseException) else RuntimeError("the session did not finish")


def report(result: DebugResult, request: DebugRequest, out=None, isolation: str = "") -> None:
    out = out or sys.stdout  # looked up now: --json sends it to stderr
    if result.diff:
        print(result.diff, file=out, end="" if result.diff.endswith("\n") else "\n")
    if result.explanation:
        who = "Found" if result.found_by else "Model's explanation"  # the search is no model
        print(f"{who}: {result.explanation}", file=out)
    for warning in result.warnings:
        print(f"Warning: {warning}", file=out)
    for line in suspicious_lines(result):
        print(line, file=out)
    for call in result.failed_calls:
        print(f"Failed call: {call.describe()}", file=out)
    for refused in result.refused[:10]:
        print(f"Refused: {refused}", file=out)
    print(
        f"Result: {evidence_line(result)}; stop: {result.stop_reason}; mode {result.mode}; "
        f"{result.turns} turn(s), {result.model_calls} model call(s), "
        f"{result.prompt_tokens + result.completion_tokens} tokens, {result.seconds:.1f} s",
        file=out,
    )
    if isolation:
        sealed = "sandboxed" if isolation == "bwrap" else "NOT sandboxed"
        print(f"Isolation: {isolation} ({sealed})", file=out)
    if result.error:
        print(f"Error: {_last_lines(result.error)}", file=out)


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
        return _fail(f"--save-patch: no such folder: {args.save_patch.parent}")
    try:  # before discovery runs the project's code, and before the model loads
        choose_isolation(args.isolation, require_sandbox=args.require_sandbox)
    except RuntimeError as error:
        return _fail(str(error))
    if args.target is None:
        if not args.test:
            return _fail("give the function (path/to/module.py::qualname) or a failing --test")
        from selfdebug.commands.fix_failure import main as from_failure

        outcome.form = "failure"
        return from_failure(args, outcome)
    request = build_request_from_args(args)
    if isinstance(request, str):
        return _fail(request)
    console = Console(stderr=True)
    try:
        runner = ProjectRunner(request.project_root, runner_settings_from(args, args.test_timeout))
    except RuntimeError as error:
        return _fail(str(error))
    warn_about("fix", runner, interpreter=True)
    try:
        backend = session_backend(args, request.mode)
    except BackendConfigError as error:
        runner.close()
        return _fail(str(error))
    original = outcome.read(request.file)
    console.print(
        escape(
            f"selfdebug: debugging {request.qualname} in {request.file} with "
            f"{len(request.tests)} test(s) ({', '.join(request.tests[:3])}"
            f"{', ...' if len(request.tests) > 3 else ''}), mode {request.mode}, "
            f"backend {backend.name}"
        ),
        soft_wrap=True,  # a test id is never broken across lines
    )
    if request.tests_found_by:  # which tests, found how (before the model is called)
        from rich.markup import escape

        console.print(f"selfdebug: tests: {escape(request.tests_found_by)}")
    try:
        result = _run_with_progress(request, backend, console, runner)
    finally:
        backend.close()
        runner.close()
    report(result, request, isolation=runner.isolation)
    outcome.shown(request, result)
    code = deliver(result, request, original, write=args.write)
    outcome.written = args.write and code == ExitCode.OK and result.success
    return save_fix(outcome, args.save_patch, code) if args.save_patch else code


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
        return _fail(_last_lines(result.error))
    if not result.success and session_failed(result):
        print("selfdebug fix: the session failed; the file was not changed.", file=sys.stderr)
        return ExitCode.SESSION_FAILED
    if not result.success:
        print("No candidate passes the chosen tests; the file was not changed.")
        return ExitCode.NO_FIX
    if write:
        assert result.fixed_file is not None
        if _read(request.file) != original:
            print(
                f"selfdebug fix: {request.file} changed during the session; not writing "
                "(the fix is shown above)",
                file=sys.stderr,
            )
            return ExitCode.NOT_WRITTEN
        try:
            _write(request.file, result.fixed_file)
        except (OSError, UnicodeEncodeError) as error:  # read-only, immutable, a full disk
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            print(
                f"selfdebug fix: could not write {request.file}: {reason}; the fix is shown above",
                file=sys.stderr,
            )
            return ExitCode.NOT_WRITTEN
        print(f"Fix found and written to {request.file}.")
    else:
        print("Fix found. Run again with --write to apply it.")
    if result.transcript_path:
        print(f"Transcript: {result.transcript_path}")
    return ExitCode.OK
