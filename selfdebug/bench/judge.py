"""The strict judge: is a fix that passes the judge tests the reference fix, or only plausible?

Why: passing the tests is not being right. A candidate that passes every judge test is
- correct: its function is the reference fix's (the same code, docstring aside), or it behaves
  like the reference on every call the tests make to the function and on generated inputs;
- plausible: it behaves differently somewhere (one differing call is kept, with what each
  version did there), or its behaviour could not be compared at all ("behaviour not checked":
  an unchecked fix is never called correct).
A candidate that fails a judge test is wrong (the callers decide that from their scoring).

Behaviour is compared by `_selfdebug_judge_v1.py`, a pytest plugin run in the project's own
interpreter through the runner (same shadow copy, sandbox and watchdog as every test run): it
swaps the function for a dispatcher that runs both versions on each call (see its docstring).
QuixBugs/HumanEvalFix problems run their visible and hidden tests; a real case runs the
project's WHOLE suite (its configured testpaths), not only the judge files.
"""

from __future__ import annotations

import ast
import json
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from selfdebug.bench.datasets import Problem
    from selfdebug.bench.real_cases import RealCase
    from selfdebug.server.runner.runner import PluginRun, ProjectRunner

PLUGIN = Path(__file__).with_name("_selfdebug_judge_v1.py")
VerdictName = Literal["correct", "plausible", "wrong"]
GENERATED = 200  # generated inputs per judge run
CALL_CPU_S = 2.0  # a candidate's CPU seconds per call (at least 20 times the reference's)
PROBLEM_TEST_TIMEOUT_S = 60.0  # per test, both versions: the watchdog's clock
REAL_TEST_TIMEOUT_S = 120.0
REAL_SUITE_TIMEOUT_S = 1200.0  # a real project's whole suite, both versions on every call
NOT_CHECKED = "behaviour not checked"


@dataclass(frozen=True)
class Verdict:
    """One candidate's verdict, how it was reached, and for a plausible one where it differs."""

    verdict: VerdictName
    how: str = ""  # "same code as the reference", "same behaviour on 412 calls of the tests ..."
    differs_on: str = ""  # "f([3, 1]): reference returns 7; candidate raises IndexError"

    def fields(self) -> dict[str, str]:
        """The ProblemOutcome fields this verdict sets."""
        return {"verdict": self.verdict, "verdict_how": self.how, "differs_on": self.differs_on}


WRONG = Verdict("wrong", "a judge test fails")


# -- the function's text ------------------------------------------------------------------------
def find_def(module_text: str, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The def of `qualname` (`func`, `Class.method`) in a module's text; None when absent."""
    try:
        body: list[ast.stmt] = ast.parse(module_text).body
    except SyntaxError:
        return None
    parts = qualname.split(".")
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        found: ast.stmt | None = None
        for node in body:
            kinds = (ast.FunctionDef, ast.AsyncFunctionDef) if last else (ast.ClassDef,)
            if isinstance(node, kinds) and node.name == part:
                found = node  # a later def of the same name wins, as at run time
        if found is None:
            return None
        if last:
            assert isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef)
            return found
        assert isinstance(found, ast.ClassDef)
        body = found.body
    return None


def function_text(module_text: str, qualname: str) -> str:
    """The def of `qualname` (decorators included) moved to column 0; "" when absent."""
    node = find_def(module_text, qualname)
    if node is None:
        return ""
    lines = module_text.splitlines(keepends=True)
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    end = node.end_lineno or node.lineno
    column = node.col_offset
    text = []
    for line in lines[first - 1 : end]:
        prefix = line[:column]
        text.append(line[column:] if not prefix.strip() else line)
    return "".join(text)


def _code_key(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    body = node.body
    first = body[0] if body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        body = body[1:]
    copy = ast.FunctionDef(
        name=node.name,
        args=node.args,
        body=body,
        decorator_list=node.decorator_list,
        returns=node.returns,
        type_comment=None,
    )
    return ast.dump(copy)


def same_code(candidate_module: str, reference_module: str, qualname: str) -> bool:
    """Whether the function is the same code in both modules (AST-equal, docstring ignored)."""
    mine = find_def(candidate_module, qualname)
    theirs = find_def(reference_module, qualname)
    if mine is None or theirs is None or type(mine) is not type(theirs):
        return False
    return _code_key(mine) == _code_key(theirs)


# -- running the plugin -------------------------------------------------------------------------
@dataclass
class Comparison:
    """What the plugin reported: its counts and first difference, or why nothing was compared."""

    compared: int = 0
    generated: int = 0
    not_copyable: int = 0
    not_finished: int = 0
    differing: int = 0
    first: dict[str, str] | None = None
    not_comparable: str = ""  # the plugin could not set up the comparison (why)
    stopped: str = ""  # the run ended before the plugin's summary (why)
    installed: bool = False
    notes: list[str] = field(default_factory=list)  # the plugin's own remarks (generation)

    @classmethod
    def from_run(cls, run: PluginRun) -> Comparison:
        found = cls()
        last: dict[str, Any] | None = None
        finished = False
        for event in run.events:
            kind = event.get("event")
            if kind == "judge_installed":
                found.installed = True
            elif kind in ("judge_progress", "judge_summary"):
                last = event
                finished = finished or kind == "judge_summary"
        if last is not None:
            for key in ("compared", "generated", "not_copyable", "not_finished", "differing"):
                setattr(found, key, int(last.get(key) or 0))
            found.first = last.get("first") or None
            found.not_comparable = str(last.get("not_comparable") or "")
            found.notes = [str(n) for n in last.get("notes") or []]
        if not finished:
            why = run.kill_reason or "no summary"
            if run.killed_nodeid:
                why += f" at {run.killed_nodeid}"
            found.stopped = why
            if not found.installed and not found.not_comparable:
                tail = run.output_tail.strip().splitlines()[-1:] or [why]
                found.not_comparable = f"the comparison never started ({tail[0][:200]})"
        return found

    def verdict(self) -> Verdict:
        """plausible on a difference or when nothing was compared; correct otherwise."""
        if self.first:
            call = self.first.get("call", "?")
            where = self.first.get("where", "")
            differs = (
                f"{call}: reference {self.first.get('reference', '?')}; "
                f"candidate {self.first.get('candidate', '?')}"
            )
            how = f"behaves differently on {self.differing} call(s) ({where} first)"
            return Verdict("plausible", how, differs)
        if self.not_comparable:
            return Verdict("plausible", f"{NOT_CHECKED}: {self.not_comparable}")
        if self.compared == 0:
            why = "no call of the function could be compared"
            if self.not_copyable:
                why += f" ({self.not_copyable} calls with arguments that cannot be deep-copied)"
            return Verdict("plausible", f"{NOT_CHECKED}: {why}")
        how = (
            f"same behaviour on {self.compared} calls of the tests and {self.generated} "
            "generated inputs"
        )
        if self.not_copyable or self.not_finished:
            how += f" ({self.not_copyable + self.not_finished} calls not compared)"
        if self.stopped:
            how += f"; the run stopped early ({self.stopped})"
        if self.notes:
            how += f"; {self.notes[0]}"
        return Verdict("correct", how)


def _job(
    runner: ProjectRunner, file: Path, qualname: str, reference: str, candidate: str, budget: float
) -> str:
    return json.dumps(
        {
            "file": str(runner.shadow.to_shadow(file.resolve())),
            "qualname": qualname,
            "reference": reference,
            "candidate": candidate,
            "generated": GENERATED,
            "generated_s": budget,
            "cpu_s": CALL_CPU_S,
        }
    )


def compare_behaviour(
    runner: ProjectRunner,
    file: Path,
    qualname: str,
    reference_text: str,
    candidate_text: str,
    tests: Sequence[str],
    *,
    timeout_s: float,
) -> Comparison:
    """One pytest run of `tests` (none: the project's configured suite) with both versions of
    the function compared on every call, then on generated inputs."""
    budget = max(5.0, runner.settings.test_timeout_s / 2)
    job = _job(runner, file, qualname, reference_text, candidate_text, budget)
    run = runner.run_plugin(PLUGIN, list(tests), job=job, timeout_s=timeout_s)
    return Comparison.from_run(run)


def _verdict_for(
    candidate_module: str,
    reference_module: str,
    qualname: str,
    compare: Any,
) -> Verdict:
    if same_code(candidate_module, reference_module, qualname):
        return Verdict("correct", "same code as the reference")
    reference = function_text(reference_module, qualname)
    candidate = function_text(candidate_module, qualname)
    if not reference or not candidate:
        missing = "the reference" if not reference else "the candidate"
        return Verdict("plausible", f"{NOT_CHECKED}: {qualname} not found in {missing}")
    comparison: Comparison = compare(reference, candidate)
    return comparison.verdict()


# -- the two kinds of benchmark -----------------------------------------------------------------
def judge_problem(
    problem: Problem, candidate_module_text: str, workdir: Path, *, python: str | None = None
) -> Verdict:
    """A QuixBugs/HumanEvalFix candidate whose tests all pass, against the record's `fixed`
    module, on the calls of the dataset's visible and hidden tests. `workdir` is made here."""
    from selfdebug.bench.datasets import write_project
    from selfdebug.server.runner import ProjectRunner, RunnerSettings

    project = write_project(problem, workdir, candidate_module_text, hidden=True)
    settings = RunnerSettings(interpreter=python, test_timeout_s=PROBLEM_TEST_TIMEOUT_S)

    def compare(reference: str, candidate: str) -> Comparison:
        runner = ProjectRunner(project.root, settings)
        try:
            ids = project.visible_test_ids + project.hidden_test_ids
            return compare_behaviour(
                runner,
                project.module,
                problem.entry_point,
                reference,
                candidate,
                ids,
                timeout_s=PROBLEM_TEST_TIMEOUT_S * 2 + 10 * len(ids) + 60,
            )
        finally:
            runner.close()

    return _verdict_for(candidate_module_text, problem.fixed, problem.entry_point, compare)


def judge_real(
    case: RealCase,
    candidate_clone: Path,
    fixed_clone: Path,
    python: Path | str | None,
    *,
    suite_timeout_s: float = REAL_SUITE_TIMEOUT_S,
) -> Verdict:
    """A real case's candidate (written into `candidate_clone`, which the environment of
    `python` imports) against the upstream fix (`fixed_clone`: the repository at `case.commit`
    without the bug patch), on every call of the project's whole test suite."""
    from selfdebug.server.runner import ProjectRunner, RunnerSettings

    file = candidate_clone / case.path
    candidate_module = file.read_text(encoding="utf-8")
    reference_module = (fixed_clone / case.path).read_text(encoding="utf-8")
    settings = RunnerSettings(
        interpreter=str(python) if python else None, test_timeout_s=REAL_TEST_TIMEOUT_S
    )

    def compare(reference: str, candidate: str) -> Comparison:
        runner = ProjectRunner(candidate_clone, settings)
        try:
            return compare_behaviour(
                runner, file, case.qualname, reference, candidate, [], timeout_s=suite_timeout_s
            )
        finally:
            runner.close()

    return _verdict_for(candidate_module, reference_module, case.qualname, compare)


@contextmanager
def reference_clone(case: RealCase, repos: Path | None) -> Iterator[Path]:
    """A fresh clone of the case's repository at its fix commit, without the bug: the reference."""
    from selfdebug.bench.real_cases import clone_case

    with tempfile.TemporaryDirectory(prefix="selfdebug-reference-") as tmp:
        yield clone_case(case, repos, Path(tmp) / case.checkout, buggy=False)
