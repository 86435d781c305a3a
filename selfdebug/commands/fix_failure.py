"""`selfdebug fix --test NODEID` without a function: start from the failure (issue 35).

The failing tests are run, the project's functions ranked for their failure, the ranking
printed ("where do I look"), then the usual session runs on the top suspects in order until one
gives a fix that passes the failing tests and keeps the wider ones (the walk:
engine/from_failure.py; this module runs each session under a progress bar and words what
happened). The proposal names the function it changed and why it was chosen.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfdebug.commands.fix_delivery import (
    budget_spent,
    deliver,
    fail,
    read_text,
    write_text,
)
from selfdebug.commands.fix_progress import run_with_progress
from selfdebug.commands.fix_report import report
from selfdebug.commands.isolation_options import runner_settings_from, warn_about
from selfdebug.commands.patch_file import save_fix
from selfdebug.exit_codes import ExitCode

if TYPE_CHECKING:
    from rich.console import Console

    from selfdebug.commands.fix_outcome import FixOutcome
    from selfdebug.server.backends.base import Backend
    from selfdebug.server.engine.suspects.rank import Suspect
    from selfdebug.server.engine.suspects.repair import SuspectAttempt
    from selfdebug.server.engine.types import DebugRequest, DebugResult
    from selfdebug.server.runner import ProjectRunner


def main(
    args: argparse.Namespace,
    outcome: FixOutcome,
    options: dict[str, Any],
    make_backend: Callable[[], Backend],
) -> int:
    """`options`: the sessions' settings from the flags (fix.py's `session_options`);
    `make_backend`: the model the flags name, loaded once a suspect is found (raises
    BackendConfigError)."""
    from rich.console import Console

    from selfdebug.server.engine import RequestError
    from selfdebug.server.engine.request import normalize_nodeid
    from selfdebug.server.runner import ProjectRunner, cli_boundary, find_project_root
    from selfdebug.server.runner.results import nodeid_file

    first = Path(nodeid_file(args.test[0]))
    if not first.is_file():
        return fail(f"no such test file: {first}")
    root = find_project_root(first.resolve(), cli_boundary(first))
    try:
        tests = [normalize_nodeid(t, root) for t in args.test]
    except RequestError as error:
        return fail(str(error))
    try:
        runner = ProjectRunner(root, runner_settings_from(args, args.test_timeout))
    except RuntimeError as error:
        return fail(str(error))
    warn_about("fix", runner, interpreter=True)
    try:
        console = Console(stderr=True)
        return _localize_and_repair(args, runner, root, tests, options, make_backend, console,
                                    outcome)  # fmt: skip
    finally:
        runner.close()


def _localize_and_repair(
    args: argparse.Namespace,
    runner: ProjectRunner,
    root: Path,
    tests: list[str],
    options: dict[str, Any],
    make_backend: Callable[[], Backend],
    console: Console,
    outcome: FixOutcome,
) -> int:
    from selfdebug.server.backends.base import BackendConfigError
    from selfdebug.server.engine.from_failure import (
        FailureJob,
        WalkHooks,
        doing,
        held,
        localize,
        repair,
    )

    console.print(f"selfdebug: localizing the failure of {', '.join(tests)}", soft_wrap=True)
    outcome.tests = tests
    job = FailureJob(root, tuple(tests), options, budget_s=options["time_budget_s"])
    walk = localize(job, held(runner))
    found = outcome.failure = walk.found
    if walk.stop == "passing":
        print("Nothing to fix: the tests pass.")
        return ExitCode.OK
    if walk.stop == "error":
        return fail(found.error)
    for line in found.table():
        print(line)
    if walk.stop == "no suspect":
        print("No function of the project ran in the failing tests; nothing to repair.")
        return ExitCode.NO_FIX
    try:
        backend = make_backend()
    except BackendConfigError as error:
        return fail(str(error))

    def run(_suspect: Suspect, request: DebugRequest) -> DebugResult:
        originals[request.target.file] = outcome.read(request.target.file)
        return run_with_progress(request, backend, console, runner)

    def on_start(attempt: SuspectAttempt) -> None:
        console.print(f"selfdebug: repairing {attempt.suspect.target} ({doing(attempt)})",
                      soft_wrap=True)  # fmt: skip

    originals: dict[Path, str] = {}
    try:
        attempts = repair(walk, WalkHooks(run, on_start=on_start), held(runner))
    except RuntimeError as error:
        print(f"selfdebug fix: the session failed: {error}", file=sys.stderr)
        return ExitCode.SESSION_FAILED
    finally:
        backend.close()
    outcome.attempts = attempts
    for attempt in attempts:
        if attempt.error:
            print(f"selfdebug fix: {attempt.suspect.target}: {attempt.error}", file=sys.stderr)
        elif attempt.refused:
            print(f"Refused the fix in {attempt.suspect.target}: {attempt.refused}.")
        elif attempt.result is not None and not attempt.result.success:
            stage = f" ({attempt.stage})" if attempt.stage else ""
            print(f"No fix in {attempt.suspect.target}{stage}.")
    for line in walk.evidence_table():
        print(line)
    shown = walk.shown
    spent = [s.target for s in walk.untried] if walk.budget_spent else None
    if shown is None or shown.result is None or shown.request is None:
        print("No suspect could be debugged.")
        if spent is not None:
            budget_spent(job.budget, spent)
        return ExitCode.NO_FIX
    request = shown.request
    base = shown.base
    if base is not None and base.result is not None and base.request is not None:
        print(f"Functions: {shown.functions()}: the first edit made some failing tests pass, "
              f"the second the rest")  # fmt: skip
        print(f"First: {base.suspect.target} ({base.why})")
        print(base.result.diff, end="")
    print(f"Function: {shown.suspect.target} ({shown.why})")
    report(shown.result, request, isolation=runner.isolation)
    outcome.shown(request, shown.result)
    if shown.result.success:  # of two functions: both files, both functions
        outcome.fix_files = shown.fix_files()
        pair = [a for a in (base, shown) if a is not None]
        outcome.functions = [(a.request.target.file, a.suspect.qualname) for a in pair if a.request]
    other = {f: text for f, text in shown.fix_files().items() if f != request.target.file}
    if args.write and shown.result.success:
        for file in other:  # the first function's file, when not the second's: as it was read?
            if read_text(file) != originals.get(file):
                print(f"selfdebug fix: {file} changed during the session; not writing "
                      "(the fix is shown above)", file=sys.stderr)  # fmt: skip
                return ExitCode.NOT_WRITTEN
    code = deliver(shown.result, request, originals[request.target.file], write=args.write)
    if spent is not None:
        budget_spent(job.budget, spent)
    if args.write and code == ExitCode.OK and shown.result.success:
        for file, text in other.items():
            try:
                write_text(file, text)
            except (OSError, UnicodeEncodeError) as error:  # the first file is written
                reason = error.strerror if isinstance(error, OSError) and error.strerror else error
                print(f"selfdebug fix: could not write {file}: {reason}; "
                      f"{request.target.file} was written, the rest of the fix is shown above",
                      file=sys.stderr)  # fmt: skip
                code = ExitCode.NOT_WRITTEN
                break
            print(f"And written to {file}.")
    outcome.written = args.write and code == ExitCode.OK and shown.result.success
    return save_fix(outcome, args.save_patch, code) if args.save_patch else code
