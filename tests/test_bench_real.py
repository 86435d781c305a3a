"""Real-bug cases end to end, on a tiny git repository made here (no network, no model).

The repository holds a fixed method (`Box.clamp`), its tests (a plain test, a parametrized one
and a unittest class) and a later commit; the case's patch puts a bug back at the fix commit.
`bench real-check` must see the judge pass at the fix and fail with the bug, and flag a case whose
patch breaks nothing; `bench repair` must clone, discover the tests itself (none named), run the
session (a scripted reply), and score the proposed file by the judge files in a fresh clone.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from selfdebug.bench.real_cases import CaseError, clone_case, load_cases
from selfdebug.bench.real_check import measure as real_check
from selfdebug.bench.repair import RESULTS_FILE, RepairConfig, run_repair
from selfdebug.server.backends.scripted import ScriptedBackend

FIXED = """\
class Box:
    def __init__(self, low, high):
        self.low = low
        self.high = high

    def clamp(self, value):
        if value < self.low:
            return self.low
        if value > self.high:
            return self.high
        return value


def width(box):
    return box.high - box.low
"""
TESTS = """\
import unittest

import pytest

from tinyproj.shapes import Box, width


def test_inside():
    assert Box(0, 10).clamp(5) == 5


@pytest.mark.parametrize("value, expected", [(-3, 0), (11, 10), (10, 10)])
def test_edges(value, expected):
    assert Box(0, 10).clamp(value) == expected


class TestBox(unittest.TestCase):
    def test_above(self):
        self.assertEqual(Box(1, 2).clamp(7), 2)

    def test_width(self):
        self.assertEqual(width(Box(1, 4)), 3)
"""
BUG_PATCH = """\
--- a/tinyproj/shapes.py
+++ b/tinyproj/shapes.py
@@ -7,5 +7,5 @@
         if value < self.low:
             return self.low
         if value > self.high:
-            return self.high
+            return self.low
         return value
"""
HARMLESS_PATCH = """\
--- a/tinyproj/shapes.py
+++ b/tinyproj/shapes.py
@@ -8,7 +8,7 @@
             return self.low
         if value > self.high:
             return self.high
-        return value
+        return value  # unchanged behaviour


 def width(box):
"""
WRONG_PLACE_PATCH = """\
--- a/tinyproj/shapes.py
+++ b/tinyproj/shapes.py
@@ -14,2 +14,2 @@
 def width(box):
-    return box.high - box.low
+    return box.low - box.high
"""
FIX_REPLY = f"The value above the range must become `high`.\n```python\n{FIXED}```\n"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def make_repo(root: Path) -> tuple[Path, str]:
    """A git repository whose second commit is the 'fix'; a third commit comes after it."""
    repo = root / "repos" / "tinyproj"
    (repo / "tinyproj").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npythonpath = ["."]\n', encoding="utf-8"
    )
    (repo / "tinyproj" / "__init__.py").write_text("", encoding="utf-8")
    (repo / "tinyproj" / "shapes.py").write_text(
        FIXED.replace("return self.high\n        return", "return self.low\n        return"),
        encoding="utf-8",
    )
    (repo / "tests" / "test_shapes.py").write_text(TESTS, encoding="utf-8")
    _git(repo, "init", "--quiet")
    _git(repo, "add", ".")
    _git(repo, "commit", "--quiet", "-m", "first: clamp has a bug")
    (repo / "tinyproj" / "shapes.py").write_text(FIXED, encoding="utf-8")
    _git(repo, "commit", "--quiet", "-am", "Fix clamp above the range")
    fix = _git(repo, "rev-parse", "HEAD")
    (repo / "README").write_text("later work\n", encoding="utf-8")
    _git(repo, "add", "README")
    _git(repo, "commit", "--quiet", "-m", "later")
    return repo, fix


def write_case(cases: Path, name: str, commit: str, patch: str) -> None:
    folder = cases / name
    folder.mkdir(parents=True)
    meta = {
        "id": f"tiny/{name}",
        "repo": "example/tinyproj",
        "license": "MIT",
        "checkout": "tinyproj",
        "commit": commit,
        "function": "tinyproj/shapes.py::Box.clamp",
        "judge": ["tests/test_shapes.py"],
        "tags": ["method", "unittest", "parametrized"],
    }
    (folder / "metadata.json").write_text(json.dumps(meta), encoding="utf-8")
    (folder / "bug.patch").write_text(patch, encoding="utf-8")


def test_a_fresh_clone_is_at_the_fix_commit_with_the_bug_put_back(tmp_path: Path) -> None:
    repo, fix = make_repo(tmp_path)
    write_case(tmp_path / "cases", "clamp", fix, BUG_PATCH)
    (case,) = load_cases(tmp_path / "cases")

    buggy = clone_case(case, repo.parent, tmp_path / "b" / "tinyproj", buggy=True)
    fixed = clone_case(case, repo.parent, tmp_path / "f" / "tinyproj", buggy=False)

    assert "return self.low\n        return value" in (buggy / case.path).read_text()
    assert (fixed / case.path).read_text() == FIXED
    assert not (fixed / "README").exists()  # the fix commit, not the branch head
    assert (repo / "tinyproj" / "shapes.py").read_text() == FIXED  # the checkout is untouched


def test_real_check_accepts_a_real_bug_and_flags_broken_cases(tmp_path: Path) -> None:
    repo, fix = make_repo(tmp_path)
    cases = tmp_path / "cases"
    write_case(cases, "clamp", fix, BUG_PATCH)
    write_case(cases, "harmless", fix, HARMLESS_PATCH)
    write_case(cases, "elsewhere", fix, WRONG_PLACE_PATCH)

    report = real_check(cases, repo.parent, tmp_path / "envs", python=Path(sys.executable))

    checks = {c["id"]: c for c in report["checks"]}
    assert checks["tiny/clamp"]["ok"], checks["tiny/clamp"]["problem"]
    assert checks["tiny/clamp"]["fixed_passed"] == checks["tiny/clamp"]["fixed_total"] == 6
    assert set(checks["tiny/clamp"]["failing"]) == {
        "tests/test_shapes.py::test_edges[11-10]",
        "tests/test_shapes.py::TestBox::test_above",
    }
    assert not checks["tiny/harmless"]["ok"]
    assert checks["tiny/harmless"]["problem"] == "no judge test fails with the bug"
    assert not checks["tiny/elsewhere"]["ok"]
    assert "after the function" in checks["tiny/elsewhere"]["problem"]
    assert report["ok"] == 1


def test_repair_discovers_the_tests_and_scores_by_the_judge(tmp_path: Path) -> None:
    repo, fix = make_repo(tmp_path)
    write_case(tmp_path / "cases", "clamp", fix, BUG_PATCH)
    config = RepairConfig(
        datasets=[tmp_path / "cases"],
        out=tmp_path / "out",
        modes=["ut"],
        max_turns=2,
        repos=repo.parent,
        python=Path(sys.executable),
    )
    backend = ScriptedBackend([FIX_REPLY])

    report = run_repair(config, backend_factory=lambda case: backend, show_progress=False)

    (row,) = [json.loads(line) for line in (tmp_path / "out" / RESULTS_FILE).open()]
    assert row["real"] and not row["harness_error"]
    assert row["tests_found"] >= 1 and row["failing_found"]
    assert all(t.startswith("tests/test_shapes.py::") for t in row["found_tests"])
    assert (row["hidden_passed"], row["hidden_total"]) == (6, 6)
    assert report["modes"]["ut"]["fixed_hidden"] == 1
    assert report["cases"][0]["verdict"] == "fixed"
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "| ut | tiny/clamp |" in markdown and "| yes | fixed | 6/6 |" in markdown
    assert (repo / "tinyproj" / "shapes.py").read_text() == FIXED  # the checkout is untouched
    # the funnel: the model's rewrite is the upstream fix's program, and it was chosen
    (funnel,) = report["funnel"]["rows"]
    assert (funnel["generated_by"], funnel["sample"]) == ("model rewrite", "turn 1, sample 1")
    assert funnel["lost_at"] == "chosen" and funnel["function_rank"] == 1
    assert "| tiny/clamp | 1 | " in markdown and "ut: not localized 0, " in markdown


def test_repair_from_a_failing_test_ranks_repairs_and_scores_by_the_judge(tmp_path: Path) -> None:
    """The from-failure form (real_from_failure.py): only the first failing judge test is
    given; the walk (engine/from_failure.py) ranks the case's method first, the edit search
    repairs it, and the fix is scored by the judge files."""
    repo, fix = make_repo(tmp_path)
    write_case(tmp_path / "cases", "clamp", fix, BUG_PATCH)
    config = RepairConfig(
        datasets=[tmp_path / "cases"],
        out=tmp_path / "out",
        modes=["search"],
        repos=repo.parent,
        python=Path(sys.executable),
        from_failure=True,
    )

    report = run_repair(config, show_progress=False)

    (row,) = [json.loads(line) for line in (tmp_path / "out" / RESULTS_FILE).open()]
    assert row["from_failure_test"].startswith("tests/test_shapes.py::") and row["real"]
    assert row["suspect_rank"] == 1 and row["evidence_rank"] == 1
    assert row["repaired"] == "tinyproj/shapes.py::Box.clamp" and row["suspects_tried"] == 1
    assert (row["hidden_passed"], row["hidden_total"]) == (6, 6)
    assert report["cases"][0]["verdict"] == "fixed"
    assert (repo / "tinyproj" / "shapes.py").read_text() == FIXED  # the checkout is untouched
    # each session of the walk keeps its transcript; the funnel reads the case's method's
    sessions = tmp_path / "out" / "transcripts" / "search" / "tiny__clamp"
    assert [p.name for p in sessions.iterdir()] == ["session-1.jsonl"]
    (funnel,) = report["funnel"]["rows"]
    assert (funnel["function_rank"], funnel["line_rank"], funnel["fix_line"]) == (1, 1, 10)
    assert funnel["generated_by"] == "edit search" and funnel["survived"]
    assert funnel["lost_at"] == "chosen"


def test_repair_without_repos_is_a_clear_error(tmp_path: Path) -> None:
    _repo, fix = make_repo(tmp_path)
    write_case(tmp_path / "cases", "clamp", fix, BUG_PATCH)
    (case,) = load_cases(tmp_path / "cases")
    try:
        clone_case(case, None, tmp_path / "x", buggy=True)
    except CaseError as error:
        assert "--repos" in str(error)
    else:
        raise AssertionError("no error without --repos")


def test_localize_ranks_the_case_function_and_again_once_the_search_ran(tmp_path: Path) -> None:
    from selfdebug.bench.localize import measure

    repo, fix = make_repo(tmp_path)
    write_case(tmp_path / "cases", "clamp", fix, BUG_PATCH)

    report = measure(tmp_path / "cases", repo.parent, tmp_path / "envs",
                     python=Path(sys.executable), search=True)  # fmt: skip

    (row,) = report["ranks"]
    assert row["problem"] == "" and row["failing_test"].startswith("tests/test_shapes.py::")
    assert row["first"] == "tinyproj/shapes.py::Box.clamp" and row["rank"] == 1
    assert row["evidence_rank"] == 1  # the search's edit there made the failing test pass
    assert report["after_search"] == {"top1": 1, "top3": 1, "top5": 1}
    assert (repo / "tinyproj" / "shapes.py").read_text() == FIXED  # the checkout is untouched
