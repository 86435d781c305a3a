"""`selfdebug bench repair` on the everyday set: each case starts from its failing test's id.

A real run, no model (`--modes search`): the project is copied, its functions ranked for the
failing test, the top suspects searched, and each candidate scored in a fresh copy with the
hidden check: correct (visible tests and hidden check pass), plausible (visible pass, hidden
check fails), wrong (a visible test fails). The scoring is checked on its own with the case's
right fix, its plausible fix and the bug itself, so each verdict is seen at least once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from selfdebug.bench.everyday_cases import EverydayCase, apply_patch, copy_project, load_everyday
from selfdebug.bench.everyday_repair import score_fix

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "docs" / "bench" / "everyday"


def test_bench_repair_runs_two_cases_from_their_failing_tests(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "selfdebug", "bench", "repair", "--dataset", str(SET),
         "--modes", "search", "--limit", "2", "--test-timeout", "5", "--out", str(out),
         "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    cases = {case.id: case for case in load_everyday(SET)[:2]}
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in results) == sorted(cases)
    for result in results:
        case = cases[result["id"]]
        assert result["harness_error"] == ""
        assert result["from_failure_test"] == case.failing_test  # the session's only input
        assert result["suspect_rank"] is not None  # the case's function was among the suspects
        assert result["suspects_tried"] >= 1
        if result["has_candidate"]:
            assert result["verdict"] in ("correct", "plausible", "wrong")
            assert "hidden check" in result["verdict_how"]
        else:
            assert result["verdict"] == ""
    report = json.loads((out / "report.json").read_text())
    stats = report["modes"]["search"]
    assert stats["problems"] == 2
    judged = sum(r["has_candidate"] for r in results)
    assert stats["correct"] + stats["plausible"] + stats["wrong"] == judged
    markdown = (out / "report.md").read_text()
    assert "| correct | plausible | wrong |" in markdown
    assert "### From the failure (given only the failing test)" in markdown
    assert all(case_id in markdown for case_id in cases)


def _fix_text(case_id: str, patch_name: str | None, tmp_path: Path) -> tuple[EverydayCase, str]:
    case = next(c for c in load_everyday(SET) if c.id == case_id)
    root = copy_project(case, tmp_path / f"src-{patch_name}")
    if patch_name is not None:
        apply_patch(root, (case.folder / patch_name).read_text(encoding="utf-8"))
    return case, (root / case.path).read_text(encoding="utf-8")


def test_scoring_tells_correct_plausible_and_wrong_apart(tmp_path: Path) -> None:
    verdicts = {}
    for name in ("fixed.patch", "plausible.patch", None):
        case, text = _fix_text("word-tally-shared", name, tmp_path)
        scores = score_fix(case, {case.path: text}, tmp_path / f"score-{name}", 5.0)
        verdicts[name] = scores
    right, plausible, bug = verdicts["fixed.patch"], verdicts["plausible.patch"], verdicts[None]
    assert right["verdict"] == "correct"
    assert right["visible_passed"] == right["visible_total"] == 3
    assert plausible["verdict"] == "plausible"
    assert plausible["differs_on"].startswith("tests/test_hidden_wordstats.py::")
    assert plausible["visible_passed"] == 3
    assert bug["verdict"] == "wrong"
    assert bug["visible_passed"] < bug["visible_total"] == 3
