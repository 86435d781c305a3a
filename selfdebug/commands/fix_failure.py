"""`selfdebug fix --test NODEID` without a function: start from the failure (issue 35).

The failing tests are run, the project's functions ranked for their failure (engine/suspects/),
the ranking printed ("where do I look"), then the usual session runs on the top suspects in
order until one gives a fix that passes the failing tests and keeps the wider ones. The proposal
names the function it changed and why it was chosen.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfdebug.commands.fix import (
    _fail,
    _read,
    _run_with_progress,
    _write,
    deliver,
    report,
    session_backend,
    session_options,
)
from selfdebug.commands.isolation_options import runner_settings_from, warn_about
from selfdebug.commands.patch_file import save_fix
from selfdebug.exit_codes import ExitCode

if TYPE_CHECKING:
    from rich.console import Console

    from selfdebug.commands.fix_outcome import FixOutcome
    from selfdebug.server.engine.suspects.rank import Suspect
    from selfdebug.server.engine.suspects.repair import SuspectAttempt
    from selfdebug.server.engine.types import DebugRequest, DebugResult
    from selfdebug.server.runner import ProjectRunner


def main(args: argparse.Namespace, outcome: FixOutcome) -> int:
    from rich.console import Console

    from selfdebug.server.engine import RequestError
    from selfdebug.server.engine.request import normalize_nodeid
    from selfdebug.server.runner import ProjectRunner, cli_boundary, find_project_root
    from selfdebug.server.runner.results import nodeid_file

    options = session_options(args)
    if isinstance(options, str):
        return _fail(options)
    if args.budget is not None and not args.budget > 0:
        return _fail("--budget must be more than 0 seconds")
    first = Path(nodeid_file(args.test[0]))
    if not first.is_file():
        return _fail(f"no such test file: {first}")
    root = find_project_root(first.resolve(), cli_boundary(first))
    try:
        tests = [normalize_nodeid(t, root) for t in args.test]
    except RequestError as error:
        return _fail(str(error))
    try:
        runner = ProjectRunner(root, runner_settings_from(args, args.test_timeout))
    except RuntimeError as error:
        return _fail(str(error))
    warn_about("fix", runner, interpreter=True)
    try:
        console = Console(stderr=True)
        return _localize_and_repair(args, runner, root, tests, options, console, outcome)
    finally:
        runner.close()


def _localize_and_repair(
    args: argparse.Namespace,
    runner: ProjectRunner,
    root: Path,
    tests: list[str],
    options: dict[str, Any],
    console: Console,
    outcome: FixOutcome,
) -> int:
    from selfdebug.server.backends.base import BackendConfigError
    from selfdebug.server.engine import build_request
    from selfdebug.server.engine.suspects.localize import localize_failure
    from selfdebug.server.engine.suspects.repair import (
        FAILURE_BUDGET_S,
        evidence_table,
        failing_tests_for,
        own_tests_refusal,
        repair_suspects,
        reported,
    )

    console.print(f"selfdebug: localizing the failure of {', '.join(tests)}", soft_wrap=True)
    outcome.tests = tests
    found = outcome.failure = localize_failure(runner, root, tests)
    if found.passed:
        print("Nothing to fix: the tests pass.")
        return ExitCode.OK
    if found.error:
        return _fail(found.error)
    for line in found.table():
        print(line)
    if not found.suspects:
        print("No function of the project ran in the failing tests; nothing to repair.")
        return ExitCode.NO_FIX
    try:
        backend = session_backend(args, args.mode)
    except BackendConfigError as error:
        return _fail(str(error))

    def build(suspect: Suspect) -> DebugRequest:
        file = root / suspect.file
        tests = failing_tests_for(found, suspect)
        return build_request(file, suspect.qualname, tests=tests, project_root=root, **options)

    def run(_suspect: Suspect, request: DebugRequest) -> DebugResult:
        originals[request.file] = outcome.read(request.file)
        return _run_with_progress(request, backend, console, runner)

    def on_start(attempt: SuspectAttempt) -> None:
        target, why = attempt.suspect.target, attempt.why
        stage = f"{attempt.stage}; " if attempt.stage else ""
        console.print(f"selfdebug: repairing {target} ({stage}{why})", soft_wrap=True)

    originals: dict[Path, str] = {}
    try:
        budget = args.budget if args.budget is not None else FAILURE_BUDGET_S
        attempts = repair_suspects(
            found,
            build,
            run,
            budget_s=budget,
            on_start=on_start,
            vet=lambda attempt: own_tests_refusal(attempt, runner, root),
        )
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
    for line in evidence_table(found, attempts):
        print(line)
    shown = reported(attempts)
    if shown is None or shown.result is None or shown.request is None:
        print("No suspect could be debugged.")
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
        outcome.functions = [(a.request.file, a.suspect.qualname) for a in pair if a.request]
    other = {f: text for f, text in shown.fix_files().items() if f != request.file}
    if args.write and shown.result.success:
        for file in other:  # the first function's file, when not the second's: as it was read?
            if _read(file) != originals.get(file):
                print(f"selfdebug fix: {file} changed during the session; not writing "
                      "(the fix is shown above)", file=sys.stderr)  # fmt: skip
                return ExitCode.NOT_WRITTEN
    code = deliver(shown.result, request, originals[request.file], write=args.write)
    if args.write and code == ExitCode.OK and shown.result.success:
        for file, text in other.items():
            try:
                _write(file, text)
            except (OSError, UnicodeEncodeError) as error:  # the first file is written
                reason = error.strerror if isinstance(error, OSError) and error.strerror else error
                print(f"selfdebug fix: could not write {file}: {reason}; "
                      f"{request.file} was written, the rest of the fix is shown above",
                      file=sys.stderr)  # fmt: skip
                code = ExitCode.NOT_WRITTEN
                break
            print(f"And written to {file}.")
    outcome.written = args.write and code == ExitCode.OK and shown.result.success
    return save_fix(outcome, args.save_patch, code) if args.save_patch else code
