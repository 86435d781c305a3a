"""Benchmark problems (QuixBugs, HumanEvalFix) and the throwaway projects they run in.

Why a project per problem: the harness must debug a benchmark problem through the very same path a
user meets (a module file, a test file, pytest in the runner's shadow copy), so each problem is
written out as a tiny project. The hidden tests live only in a separate *scoring* copy, written
after the session, so the model and the engine never see them.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from selfdebug.server.engine.types import DebugRequest

MODULE_NAME = "candidate"
MODULE_FILE = f"{MODULE_NAME}.py"
VISIBLE_TEST_FILE = "test_visible.py"
HIDDEN_TEST_FILE = "test_hidden.py"
_TEST_PREAMBLE = f"from {MODULE_NAME} import *  # noqa: F403\n\n"


class DatasetError(ValueError):
    """A dataset file is missing, unreadable or has a malformed record (message names the line)."""


@dataclass(frozen=True)
class Problem:
    id: str  # "quixbugs/bitcount", "humanevalfix/1"
    source: str  # "quixbugs" | "humanevalfix" | anything a custom dataset says
    entry_point: str  # the function to debug
    buggy: str  # full module source handed to the engine
    fixed: str  # the reference fix (tests of the harness use it; the engine never sees it)
    visible_tests: str  # test module body shown to the model (names of `candidate` in scope)
    hidden_tests: str  # test module body used only for scoring
    visible_choice: str  # which record fields make up `visible_tests` (stated in the report)
    infinite_loop_prone: bool = False

    @property
    def visible_test_names(self) -> list[str]:
        return collect_test_names(self.visible_tests)

    @property
    def hidden_test_names(self) -> list[str]:
        return collect_test_names(self.hidden_tests)


def collect_test_names(module_body: str) -> list[str]:
    """Top-level `test_*` functions of a test module body, in source order (as pytest collects)."""
    tree = ast.parse(module_body)
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
    ]


def choose_visible_tests(record: dict) -> tuple[str, str]:
    """The tests the model is shown, and a label saying which fields they came from.

    QuixBugs' visible test is its first case, and that case *passes* on the buggy code in over half
    the problems: the engine would then see nothing to fix. In that case we show the first case AND
    the first case the buggy code fails (`visible_tests_failing`), so the model gets one working
    example and one failing one. HumanEvalFix shows its docstring examples as given (5 of the dev
    problems pass them on the buggy code; the engine then reports "already_passing", scored as not
    fixed).
    """
    visible = record.get("visible_tests") or ""
    failing = record.get("visible_tests_failing") or ""
    if record.get("visible_fails_on_buggy", True) or not failing.strip():
        return visible, "visible_tests"
    shown = set(collect_test_names(visible))
    extra = [name for name in collect_test_names(failing) if name not in shown]
    if not extra:
        return visible, "visible_tests"
    return visible.rstrip("\n") + "\n\n\n" + failing, "visible_tests+visible_tests_failing"


def problem_from_record(record: dict) -> Problem:
    visible, choice = choose_visible_tests(record)
    return Problem(
        id=str(record["id"]),
        source=str(record.get("source", "")),
        entry_point=str(record["entry_point"]),
        buggy=str(record["buggy"]),
        fixed=str(record.get("fixed", "")),
        visible_tests=visible,
        hidden_tests=str(record["tests"]),
        visible_choice=choice,
        infinite_loop_prone=bool(record.get("infinite_loop_prone", False)),
    )


def load_problems(path: Path) -> list[Problem]:
    """Read a normalized benchmark JSONL file (its fields: ../shared/bench/README.md)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise DatasetError(f"cannot read dataset {path}: {error}")
    problems = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            problem = problem_from_record(json.loads(line))
            problem.visible_test_names  # noqa: B018 - parse now, so bad tests fail early
            problem.hidden_test_names  # noqa: B018
        except (ValueError, KeyError, SyntaxError) as error:
            raise DatasetError(f"{path}:{number}: bad record: {error!r}")
        problems.append(problem)
    return problems


class _Named(Protocol):
    @property
    def id(self) -> str: ...


NamedT = TypeVar("NamedT", bound=_Named)


def select_problems(
    problems: list[NamedT], ids: list[str] | None = None, limit: int | None = None
) -> list[NamedT]:
    """Keep the named ids (in dataset order; unknown ids are an error), then the first `limit`."""
    if ids:
        known = {p.id for p in problems}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise DatasetError(f"unknown problem ids: {', '.join(unknown)}")
        wanted = set(ids)
        problems = [p for p in problems if p.id in wanted]
    if limit is not None:
        problems = problems[:limit]
    return problems


@dataclass(frozen=True)
class ProblemProject:
    """Paths of one problem's throwaway project."""

    root: Path
    module: Path
    visible_test_ids: list[str]
    hidden_test_ids: list[str]

    def debug_request(self, problem: Problem, mode: str, **options: Any) -> DebugRequest:
        """The session request for this project: the visible tests only, through the same
        DebugRequest the CLI and the editor build; `options` are the other DebugRequest options
        by name (`request.with_options`)."""
        from selfdebug.server.engine.request import new_request, with_options

        request = new_request(self.module, problem.entry_point, self.root, self.visible_test_ids)
        options.setdefault("record_candidates", True)  # the funnel (funnel.py) reads them
        return with_options(request, mode=mode, **options)


def write_project(
    problem: Problem, root: Path, module_text: str, *, hidden: bool
) -> ProblemProject:
    """Write `candidate.py` + `test_visible.py` (+ `test_hidden.py` when `hidden`) under `root`.

    The session project gets hidden=False: the hidden tests are not even on disk while the model
    works. The scoring copy gets hidden=True and the proposed fix as `module_text`.
    """
    root.mkdir(parents=True, exist_ok=True)
    module = root / MODULE_FILE
    module.write_text(module_text, encoding="utf-8")
    (root / VISIBLE_TEST_FILE).write_text(_TEST_PREAMBLE + problem.visible_tests, encoding="utf-8")
    hidden_ids: list[str] = []
    if hidden:
        (root / HIDDEN_TEST_FILE).write_text(
            _TEST_PREAMBLE + problem.hidden_tests, encoding="utf-8"
        )
        hidden_ids = [f"{HIDDEN_TEST_FILE}::{name}" for name in problem.hidden_test_names]
    return ProblemProject(
        root=root,
        module=module,
        visible_test_ids=[f"{VISIBLE_TEST_FILE}::{name}" for name in problem.visible_test_names],
        hidden_test_ids=hidden_ids,
    )
