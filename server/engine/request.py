"""Build a DebugRequest from what a user typed or clicked: shared by the CLI, the LSP server
and the benchmark so that "which tests" and "which project" are decided in one place."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selfdebug.server.engine.types import (
    Budget,
    DebugRequest,
    ModelOptions,
    Reporting,
    TargetSpec,
)
from selfdebug.server.runner.results import nodeid_file


class RequestError(Exception):
    """Bad input: missing file or function, a node id that names no file, no tests found.
    The message is fit to show a user."""


def target_file_problem(file: Path | str) -> str:
    """Why `file` (as the user typed it in `path/mod.py::func`) cannot hold the function; ""
    when it is a file. A folder is named as one: `tests::median` is not a missing file."""
    path = Path(file)
    if path.is_dir():
        return f"{file} is a folder, not a file: name the module, path/to/module.py::function"
    if not path.is_file():
        return f"no such file: {file}"
    return ""


def normalize_nodeid(nodeid: str, project_root: Path, cwd: Path | None = None) -> str:
    """A pytest node id relative to the project root. Accepts ids relative to the current
    directory or absolute paths, as a user types them."""
    path_part, sep, rest = nodeid.partition("::")
    if not path_part.endswith(".py") and not Path(path_part).is_dir():
        raise RequestError(f"bad test node id {nodeid!r}: expected path/test_file.py::test_name")
    candidates = [Path(path_part)] if Path(path_part).is_absolute() else []
    if not candidates:
        candidates = [(cwd or Path.cwd()) / path_part, project_root / path_part]
    for candidate in candidates:
        if candidate.exists():
            try:
                relative = candidate.resolve().relative_to(project_root.resolve())
            except ValueError:
                raise RequestError(f"test {nodeid!r} is outside the project {project_root}")
            return relative.as_posix() + sep + rest
    raise RequestError(f"bad test node id {nodeid!r}: no such file {path_part}")


def default_wider_tests(chosen: list[str]) -> list[str]:
    """The regression guard when the user names none: the whole test files of the chosen tests.

    Why files: they hold the function's neighbours' tests (the ones a fix most often breaks), and a
    file node id costs one pytest run, with no extra collection step.
    """
    return list(dict.fromkeys(nodeid_file(nodeid) for nodeid in chosen))


# A session runs its chosen tests for every candidate (and the edit search for every edit); the
# wider guard runs once per plausible fix. A real project's discovery can find hundreds of tests
# that execute a helper (476 for one dateutil parser function), which made every run take 10 s.
MAX_CHOSEN = 40


@dataclass(frozen=True)
class TestChoice:
    """The tests a session runs, and one line on how they were found (shown before the model
    is called: the editor's progress, the CLI, the transcript)."""

    tests: list[str]  # pytest node ids relative to the project root, best first
    found_by: str  # "3 tests execute `f` (found by running 2 test files, 1.2 s)"
    warnings: list[str] = field(default_factory=list)  # e.g. a test file that fails to collect
    failing: list[str] = field(default_factory=list)  # those that failed when discovery ran them

    def for_session(self, limit: int = MAX_CHOSEN) -> tuple[list[str], list[str], str]:
        """(chosen, guarded, note): at most `limit` tests a session runs for every candidate,
        the failing ones first, then the best of the others; the rest join the regression
        guard, so no found test goes unrun before a fix is proposed."""
        if len(self.tests) <= limit:
            return list(self.tests), [], ""
        failed = set(self.failing)
        failing = [t for t in self.tests if t in failed]
        passing = [t for t in self.tests if t not in failed]
        chosen = failing[:limit] + passing[: max(0, limit - len(failing))]
        kept = set(chosen)
        guarded = [t for t in self.tests if t not in kept]
        note = (
            f"runs {len(chosen)} of them for every candidate (the {len(failing)} failing first), "
            f"the other {len(guarded)} in the regression check"
        )
        return chosen, guarded, note


def choose_tests(
    file: Path,
    qualname: str,
    project_root: Path,
    tests: list[str] | None = None,
    *,
    settings: Any = None,
    cwd: Path | None = None,
    runner: Any = None,
    discovery_s: float | None = None,
) -> TestChoice:
    """The given node ids (normalized), or the tests that execute the function (discovery:
    static candidates confirmed by running them, server/runner/discover_exec.py), best first;
    `discovery_s`: the discovery's time (None: its own default). Raises RequestError when
    there are none."""
    if tests:
        nodeids = [normalize_nodeid(t, project_root, cwd) for t in tests]
        return TestChoice(nodeids, f"{len(nodeids)} named test{'' if len(nodeids) == 1 else 's'}")
    from selfdebug.server.runner import DiscoveryError
    from selfdebug.server.runner.discover_exec import DEFAULT_BUDGET_S, discover_tests

    try:
        found = discover_tests(
            project_root, file, qualname, settings, runner=runner,
            budget_s=DEFAULT_BUDGET_S if discovery_s is None else discovery_s,
        )  # fmt: skip
    except DiscoveryError as error:
        raise RequestError(str(error))
    nodeids = list(dict.fromkeys(found.nodeids))
    if not nodeids:
        raise RequestError(
            f"no tests found for {qualname} in {file}; name one with --test path::test_name"
        )
    return TestChoice(nodeids, found.summary(), found.warnings, list(found.failing))


def resolve_tests(
    file: Path,
    qualname: str,
    project_root: Path,
    tests: list[str] | None = None,
    *,
    settings: Any = None,
    cwd: Path | None = None,
) -> list[str]:
    """`choose_tests`' node ids."""
    return choose_tests(file, qualname, project_root, tests, settings=settings, cwd=cwd).tests


def new_request(
    file: Path,
    qualname: str,
    project_root: Path,
    tests: list[str],
    wider_tests: list[str] | None = None,
) -> DebugRequest:
    """The one constructor of a DebugRequest once the tests are known, for the CLI
    (`build_request`), the editor (lsp/settings.py) and the benchmark: the regression guard never
    repeats a chosen test. Callers set the other fields with `with_options` (by the flat names
    the flags and settings use) or with `dataclasses.replace` on a group."""
    return DebugRequest(
        TargetSpec(
            file=file,
            qualname=qualname,
            project_root=project_root,
            tests=list(tests),
            wider_tests=[t for t in wider_tests or [] if t not in tests],
        )
    )


# Each option a front end sets by name (a CLI flag's, a bench run's, a failure walk's session
# keywords), and the group of DebugRequest that holds it; the others (`mode`, `auto_search`) are
# DebugRequest's own. The names are unique across the groups (tests/test_engine_request.py).
_GROUP_KINDS = {
    "target": TargetSpec,
    "budget": Budget,
    "model": ModelOptions,
    "reporting": Reporting,
}
_GROUPS = {f.name: group for group, kind in _GROUP_KINDS.items() for f in dataclasses.fields(kind)}
_OWN = tuple(f.name for f in dataclasses.fields(DebugRequest) if f.name not in _GROUP_KINDS)


def with_options(request: DebugRequest, **options: Any) -> DebugRequest:
    """`request` with the options named as the front ends name them (`max_turns=3`,
    `samples=4`, `transcript_path=...`), each put in its group. Raises TypeError on a name
    that is no option, as `dataclasses.replace` would: a typo fails loudly, not silently."""
    unknown = sorted(name for name in options if name not in _GROUPS and name not in _OWN)
    if unknown:
        raise TypeError(f"no such DebugRequest option: {', '.join(unknown)}")
    changes: dict[str, Any] = {name: options[name] for name in _OWN if name in options}
    for group in _GROUP_KINDS:
        fields = {k: v for k, v in options.items() if _GROUPS.get(k) == group}
        if fields:
            changes[group] = dataclasses.replace(getattr(request, group), **fields)
    return dataclasses.replace(request, **changes)


def build_request(
    file: Path | str,
    qualname: str,
    *,
    tests: list[str] | None = None,
    wider_tests: list[str] | None = None,
    project_root: Path | None = None,
    cwd: Path | None = None,
    runner_settings: Any = None,
    **options: Any,
) -> DebugRequest:
    """A DebugRequest with the project root found and the tests resolved; `options` are the
    other DebugRequest options by name (mode, max_turns, samples, transcript_path, ...: see
    `with_options`). `runner_settings`
    (isolation, trust) apply to test discovery, which already runs the project's code.

    `wider_tests=None` means the default regression guard (`default_wider_tests`); `[]` none."""
    path = Path(file).resolve()
    problem = target_file_problem(file)
    if problem:
        raise RequestError(problem)
    if project_root is None:
        from selfdebug.server.runner import cli_boundary, find_project_root

        # never above the current directory when the file is under it (a home with a .git)
        project_root = find_project_root(path, cli_boundary(path, cwd))
    choice = choose_tests(path, qualname, project_root, tests, settings=runner_settings, cwd=cwd)
    chosen, guarded, note = choice.for_session()
    if wider_tests is None:
        wider = default_wider_tests(chosen + guarded)
    else:
        wider = [normalize_nodeid(t, project_root, cwd) for t in wider_tests]
    found_by = f"{choice.found_by}; {note}" if note else choice.found_by
    request = new_request(path, qualname, Path(project_root).resolve(), chosen, wider)
    return with_options(request, tests_found_by=found_by, **options)
