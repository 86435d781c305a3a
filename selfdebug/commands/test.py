"""Run the tests of one function, or the named tests, in a sealed shadow copy of its project.

    selfdebug test path/mod.py::func [--test NODEID ...] [--timeout S] [--json]
    selfdebug test --test NODEID [--test NODEID ...]

Without --test, the function's tests are found: the ones that execute it (static candidates
confirmed by running them, cached per function; server/runner/discover_exec.py). Without the
function, the named tests run, in the project of the first one (as `selfdebug fix --test`).
Exit 0 when every test passes, 1 when one fails (or the run failed), 2 for a usage or input error
(a missing file or function, no tests found, an interpreter without pytest).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfdebug.commands.isolation_options import (
    add_isolation_arguments,
    runner_settings_from,
    warn_about,
)
from selfdebug.exit_codes import ExitCode

if TYPE_CHECKING:
    from collections.abc import Iterator

    from selfdebug.server.runner import RunResult, TestCandidate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        nargs="?",
        help="the function: path/to/module.py::qualname; without it, the --test ids are run",
    )
    parser.add_argument(
        "--test", action="append", default=[], metavar="NODEID", help="run this test (repeat)"
    )
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S", help="per test")
    add_isolation_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object")


def _fail(message: str) -> int:
    print(f"selfdebug test: {message}", file=sys.stderr)
    return ExitCode.USAGE


def _function_exists(file: Path, qualname: str) -> str:
    """'' when `qualname` is defined in `file`, else why not."""
    from selfdebug.instrument import InstrumentError, locate_function

    try:
        locate_function(file.read_bytes(), qualname)
    except OSError as error:
        return f"cannot read {file}: {error.strerror}"
    except InstrumentError as error:
        return f"{file}: {error}"
    return ""


def _project_of(args: argparse.Namespace) -> tuple[Path, Path | None, str] | str:
    """(project root, the function's file or None, its qualname), or a usage error: the
    function's project, or without a function the first --test's."""
    from selfdebug.server.engine.request import target_file_problem
    from selfdebug.server.runner import cli_boundary, find_project_root
    from selfdebug.server.runner.results import nodeid_file

    if args.target is None:
        if not args.test:
            return "give the function (path/to/module.py::qualname) or the --test ids to run"
        first = Path(nodeid_file(args.test[0]))
        if not first.exists():
            return f"no such test file: {first}"
        return find_project_root(first.resolve(), cli_boundary(first)), None, ""
    path, sep, qualname = args.target.rpartition("::")
    if not sep or not path or not qualname:
        return f"expected path/to/module.py::function, got {args.target!r}"
    file = Path(path).resolve()
    problem = target_file_problem(path)
    if problem:
        return problem
    problem = _function_exists(file, qualname)
    if problem:
        return problem
    return find_project_root(file, cli_boundary(file)), file, qualname


@contextmanager
def _status(message: str) -> Iterator[None]:
    """A spinner on stderr while the tests run (stdout keeps the results and --json); shown
    only on a terminal, and gone when done."""
    from rich.console import Console
    from rich.markup import escape

    with Console(stderr=True).status(escape(message)):
        yield


def main(args: argparse.Namespace) -> int:
    from selfdebug.server.engine.request import RequestError, normalize_nodeid
    from selfdebug.server.runner import DiscoveryError, ProjectRunner
    from selfdebug.server.runner.discover_exec import discover_tests

    found_project = _project_of(args)
    if isinstance(found_project, str):
        return _fail(found_project)
    project_root, file, qualname = found_project
    try:  # the same reading of a typed node id as `selfdebug fix` and the editor
        nodeids = [normalize_nodeid(t, project_root) for t in args.test]
    except RequestError as error:
        return _fail(str(error))
    settings = runner_settings_from(args, args.timeout)
    try:
        runner = ProjectRunner(project_root, settings)
    except RuntimeError as error:  # bwrap requested or required but unusable
        return _fail(str(error))
    warn_about("test", runner)
    with runner:
        candidates: list[TestCandidate] = []
        found_by = ""
        if not nodeids:
            assert file is not None
            try:
                with _status(f"finding the tests of {qualname}"):
                    found = discover_tests(project_root, file, qualname, runner=runner)
            except DiscoveryError as error:
                return _fail(str(error))
            candidates, nodeids, found_by = found.tests, found.nodeids, found.summary()
            for warning in found.warnings:
                print(f"selfdebug test: {warning}", file=sys.stderr)
        with _status(f"running {len(nodeids)} test(s) in a sealed copy of {project_root}"):
            result = runner.run(nodeids)
    if args.json:
        answer = _as_json(args.target, project_root, candidates, result)
        print(json.dumps({**answer, "found_by": found_by}, indent=2))
    else:
        if found_by:
            print(f"tests: {found_by}")
        _print_summary(project_root, candidates, result)
    if result.error and not result.tests:
        return ExitCode.USAGE
    return ExitCode.OK if result.all_passed else ExitCode.NO_FIX


def _as_json(
    target: str | None, project_root: Path, candidates: list[TestCandidate], result: RunResult
) -> dict[str, Any]:
    from selfdebug.server.runner import isolation_warning
    from selfdebug.server.runner.sandbox import protection

    return {
        "target": target,
        "project_root": str(project_root),
        "candidates": [
            {
                "nodeid": c.nodeid,
                "file": str(c.file),
                "line": c.line,
                "score": c.score,
                "reason": c.reason,
            }
            for c in candidates
        ],
        "result": result.to_json(),
        "sandboxed": result.isolation == "bwrap",
        "protection": protection(result.isolation),
        "isolation_warning": isolation_warning(result.isolation),
    }


def _print_summary(project_root: Path, candidates: list[TestCandidate], result: RunResult) -> None:
    from rich.console import Console
    from rich.markup import escape

    from selfdebug.server.engine.evidence import Evidence

    console = Console(highlight=False, soft_wrap=True)
    reasons = {c.nodeid: c.reason for c in candidates}
    styles = {"passed": "green", "skipped": "yellow", "failed": "red", "error": "red"}
    for test in result.tests:
        style = styles.get(test.outcome, "magenta")
        why = f"  [dim](found: {escape(reasons[test.nodeid])})[/]" if test.nodeid in reasons else ""
        console.print(
            f"[{style}]{test.outcome:<8}[/] {test.duration:6.2f} s  {escape(test.nodeid)}{why}"
        )
    for failing in Evidence.of(result).failing:
        test = failing.result
        first = failing.message_lines[0] if failing.message_lines else ""
        header = f"{test.nodeid}: {test.exc_type} {first}"
        console.print(f"\n[bold]{escape(header)}[/]")
        lines = []
        if test.assert_left is not None:
            lines += [f"  left:  {test.assert_left}", f"  op:    {test.assert_op}"]
            lines.append(f"  right: {test.assert_right}")
        for frame in test.frames[-3:]:
            where = os.path.relpath(frame.path, project_root)
            lines.append(f"  at {where}:{frame.line} in {frame.function}: {frame.code}")
        if test.outcome in ("timeout", "error") and test.stdout.strip():
            lines.append(f"  last output: {test.stdout.strip()[-300:]}")
        for line in lines:
            console.print(escape(line))
    if result.error:
        console.print(f"\n[red]run error:[/] {escape(result.error)}")
    for note in result.notes:
        if note not in result.error:  # the environment's one-line fix leads the error already
            console.print(f"[yellow]note:[/] {escape(note)}")
    state = "cancelled" if result.cancelled else f"{result.passed}/{result.total} passed"
    sealed = "sandboxed" if result.isolation == "bwrap" else "NOT sandboxed"
    console.print(
        f"\n{state} in {result.duration:.2f} s (isolation: {result.isolation}, {sealed})",
        style="bold green" if result.all_passed else "bold red",
    )
