"""Is each everyday case what it says (everyday_cases.py)? Checked with real pytest runs.

Why: a case whose failing test passes, whose fix does not apply, or whose hidden check passes on
the bug measures nothing. For each case, in fresh copies: the buggy project (its failing test
fails, the hidden check fails), the right fix (`fixed.patch`: every visible test and the hidden
check pass), and the plausible fix when there is one (`plausible.patch`: the visible tests pass,
the hidden check fails); the patches change only the metadata's file, its function exists, and
the project has 2 to 6 tests. The copies run in one pytest process (_selfdebug_variants_v1.py).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from selfdebug.bench.everyday_cases import EverydayCase, EverydayError, copy_project

MAX_VISIBLE = 6  # a small project's tests: 2 to 6 (test functions), at least one failing
_VARIANTS = Path(__file__).with_name("_selfdebug_variants_v1.py")
_Copy = tuple[str, Path, list[str]]  # "buggy" / "fixed" / "plausible", its root, pytest's args
_Job = tuple[EverydayCase, str, Path, list[str]]  # a case's copy


def run_variants(
    jobs: list[tuple[Path, list[str]]], out: Path, timeout_s: float = 120.0
) -> list[dict[str, str]]:
    """Each job's tests' outcomes ("PASSED", "FAILED", "ERROR", "SKIPPED") by node id, from
    one pytest process with this interpreter (no cache, no bytecode, no third-party plugin:
    these projects need none, and loading them costs seconds)."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    request, answer = out / "jobs.json", out / "outcomes.json"
    request.write_text(json.dumps([[str(root), args] for root, args in jobs]), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(_VARIANTS), str(request), str(answer)],
        capture_output=True, text=True, env=env, timeout=timeout_s, check=False,
    )  # fmt: skip
    if done.returncode != 0 or not answer.is_file():
        tail = " / ".join((done.stdout + done.stderr).strip().splitlines()[-3:])
        raise EverydayError(f"the pytest runs failed (exit {done.returncode}): {tail}")
    outcomes: list[dict[str, str]] = json.loads(answer.read_text(encoding="utf-8"))
    return outcomes


def _failed(outcomes: dict[str, str], files: list[str] | None = None) -> list[str]:
    bad = [n for n, outcome in outcomes.items() if outcome not in ("PASSED", "SKIPPED")]
    return [n for n in bad if files is None or _in(n, files)]


def _in(nodeid: str, files: list[str]) -> bool:
    return any(nodeid == f or nodeid.startswith(f + "::") for f in files)


def _patched_paths(patch: str) -> set[str]:
    prefix = "+++ b/"
    return {line[len(prefix) :].strip() for line in patch.splitlines() if line.startswith(prefix)}


def has_function(source: str, qualname: str) -> bool:
    """Whether `source` defines `qualname` (`func` or `Class.method`) at its top level."""
    body: list[ast.stmt] = ast.parse(source).body
    for name in qualname.split("."):
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        found = [n for n in body if isinstance(n, kinds) and n.name == name]
        if not found:
            return False
        body = found[0].body
    return True


def check_cases(
    cases: list[EverydayCase], workdir: Path, processes: int = 1
) -> dict[str, list[str]]:
    """What is wrong with each case (by id; empty: nothing), from runs in fresh copies under
    `workdir`: every copy of every case in `processes` pytest processes run side by side."""
    from concurrent.futures import ThreadPoolExecutor

    problems: dict[str, list[str]] = {}
    jobs: list[_Job] = []
    for case in cases:
        problems[case.id], planned = _prepare(case, workdir / case.id)
        jobs += [(case, name, root, args) for name, root, args in planned]
    chunks = [jobs[i::processes] for i in range(max(1, processes))]

    def run(chunk: list[_Job], index: int) -> list[dict[str, str]]:
        out = workdir / f"run-{index}"
        out.mkdir(parents=True, exist_ok=True)
        return run_variants([(root, args) for _, _, root, args in chunk], out) if chunk else []

    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        answers = list(pool.map(run, chunks, range(len(chunks))))
    runs: dict[str, dict[str, dict[str, str]]] = {}
    for chunk, outcomes in zip(chunks, answers, strict=True):
        for (case, name, _, _), result in zip(chunk, outcomes, strict=True):
            runs.setdefault(case.id, {})[name] = result
    for case in cases:
        if case.id in runs:
            problems[case.id] += _judge(case, runs[case.id])
    return problems


def check_case(case: EverydayCase, workdir: Path) -> list[str]:
    """What is wrong with `case` (empty: nothing)."""
    return check_cases([case], workdir)[case.id]


def _prepare(case: EverydayCase, workdir: Path) -> tuple[list[str], list[_Copy]]:
    """The static problems of `case`, and its copies to run."""
    problems: list[str] = []
    source = case.project / case.path
    if not source.is_file() or not has_function(source.read_text(encoding="utf-8"), case.qualname):
        problems.append(f"no function {case.function} in project/")
    hidden = [f"tests/{f.name}" for f in case.hidden_files()]
    if not hidden:
        return [*problems, "no hidden/test_hidden_*.py"], []
    tests = [*case.visible_test_files(), *hidden]
    planned = [("buggy", copy_project(case, workdir / "buggy", hidden=True), tests)]
    for name, patch in (("fixed", case.fix_patch()), ("plausible", case.plausible_patch())):
        if patch is None:
            continue
        wrong = _patched_paths(patch) - {case.path}
        if wrong or not _patched_paths(patch):
            problems.append(f"{name}.patch changes {sorted(wrong) or 'nothing'}, not {case.path}")
        try:
            root = copy_project(case, workdir / name, patch=patch, hidden=True)
        except EverydayError as error:
            problems.append(str(error))
            continue
        planned.append((name, root, tests + (["-x"] if name == "fixed" else [])))
    return problems, planned


def _judge(case: EverydayCase, runs: dict[str, dict[str, str]]) -> list[str]:
    """The problems the runs show: the buggy copy's, the fixed one's, the plausible one's."""
    problems: list[str] = []
    hidden = [f"tests/{f.name}" for f in case.hidden_files()]
    buggy = runs["buggy"]
    shown = {n.split("[")[0] for n in buggy if not _in(n, hidden)}
    if not 2 <= len(shown) <= MAX_VISIBLE:
        problems.append(f"{len(shown)} visible tests (2 to {MAX_VISIBLE} wanted)")
    if buggy.get(case.failing_test) != "FAILED":
        problems.append(f"buggy: {case.failing_test} is {buggy.get(case.failing_test, 'not run')}")
    if not _failed(buggy, hidden):
        problems.append("buggy: the hidden check passes")
    if "fixed" not in runs:
        problems.append("fixed: not run")
    for name in ("fixed", "plausible"):
        outcomes = runs.get(name)
        if outcomes is None:
            continue
        visible_failed = [n for n in _failed(outcomes) if not _in(n, hidden)]
        if visible_failed or not outcomes:
            problems.append(f"{name}: visible tests fail: {visible_failed or 'none ran'}")
        ran_hidden = any(_in(n, hidden) for n in outcomes)
        if name == "fixed" and (_failed(outcomes, hidden) or not ran_hidden):
            problems.append(f"fixed: the hidden check fails: {_failed(outcomes, hidden)}")
        if name == "plausible" and not _failed(outcomes, hidden):
            problems.append("plausible: the hidden check passes")
    return problems
