"""The repair report: scoring categories, per-mode figures, resume bookkeeping, files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfdebug.bench.repair import (
    CONFIG_FILE,
    RESULTS_FILE,
    ConfigMismatch,
    check_resumable,
    load_outcomes,
)
from selfdebug.bench.repair_report import (
    ProblemOutcome,
    build_report,
    mode_stats,
    plot_fixes_by_turn,
    render_markdown,
)


def outcome(pid: str, visible: tuple[int, int], hidden: tuple[int, int], **extra) -> ProblemOutcome:
    return ProblemOutcome(
        mode=extra.pop("mode", "ut"),
        id=pid,
        source="mini",
        has_candidate=extra.pop("has_candidate", True),
        visible_passed=visible[0],
        visible_total=visible[1],
        hidden_passed=hidden[0],
        hidden_total=hidden[1],
        **extra,
    )


def test_categories_and_costs() -> None:
    outcomes = [
        outcome("a", (1, 1), (3, 3), turns=2, fixed_at_turn=2, prompt_tokens=100),
        outcome("b", (1, 1), (1, 3), turns=1, fixed_at_turn=1, prompt_tokens=50),
        outcome("c", (0, 1), (0, 0), turns=3, prompt_tokens=150, has_candidate=False),
        outcome("d", (1, 1), (3, 3), turns=1, fixed_at_turn=1, prompt_tokens=100),
    ]
    stats = mode_stats("ut", outcomes)
    assert (stats.fixed_visible, stats.fixed_hidden, stats.plausible_but_wrong) == (3, 2, 1)
    assert stats.not_fixed == 1
    assert stats.prompt_tokens_per_problem == 100.0
    assert stats.prompt_tokens_per_fix == 200.0  # 400 tokens spent, 2 honest fixes
    assert stats.fixes_by_turn == {1: 1, 2: 1}
    assert stats.mean_turns == 1.75


def test_fixes_per_model_minute_and_wall_minute() -> None:
    outcomes = [
        outcome("a", (1, 1), (3, 3), mode="auto", model_seconds=30, wall_seconds=40),
        outcome("b", (1, 1), (1, 3), mode="auto", model_seconds=30, wall_seconds=40),
        outcome(
            "c",
            (0, 1),
            (0, 3),
            mode="auto",
            has_candidate=False,
            model_seconds=120,
            wall_seconds=160,
        ),
    ]
    stats = mode_stats("auto", outcomes)
    assert stats.model_minutes_total == 3.0
    assert stats.fixes_per_model_minute == 0.33  # 1 honest fix for 3 model-minutes
    assert stats.fixes_per_wall_minute == 0.25
    none = mode_stats("search", [outcome("a", (1, 1), (3, 3), wall_seconds=6)])
    assert none.fixes_per_model_minute is None and none.fixes_per_wall_minute == 10.0
    markdown = render_markdown(build_report(outcomes, ["auto"], {"max_turns": 1}))
    assert "| 3.0 | 0.33 | 0.25 |" in markdown


def test_a_candidate_with_a_collection_error_is_not_fixed() -> None:
    broken = outcome("a", (1, 1), (3, 3), scoring_error="SyntaxError in candidate.py")
    assert not broken.fixed_visible and not broken.fixed_hidden


def test_report_files(tmp_path: Path) -> None:
    outcomes = [
        outcome("a", (1, 1), (3, 3), fixed_at_turn=1, turns=1),
        outcome("a", (1, 1), (3, 3), fixed_at_turn=0, turns=0, mode="none"),
        outcome("b", (1, 1), (1, 3), mode="none"),
    ]
    report = build_report(outcomes, ["none", "ut"], {"max_turns": 3, "backend_name": "scripted"})
    assert report["modes"]["none"]["fixed_hidden"] == 1
    assert report["modes"]["none"]["plausible_but_wrong"] == 1
    markdown = render_markdown(report)
    assert "| none | 2 | 2 | **1** | 1 | 0 |" in markdown
    assert "| ut | 0 | 1 | 0 | 0 |\n" in markdown  # fixes by turn 0..3
    png = plot_fixes_by_turn(report, tmp_path / "plot.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_resume_bookkeeping_skips_torn_lines_and_retries_harness_errors(tmp_path: Path) -> None:
    lines = [
        json.dumps(outcome("a", (1, 1), (1, 1)).to_json()),
        json.dumps(outcome("b", (0, 1), (0, 1), harness_error="RuntimeError('x')").to_json()),
        json.dumps(outcome("c", (0, 1), (0, 1)).to_json())[:40],  # killed mid-write
    ]
    (tmp_path / RESULTS_FILE).write_text("\n".join(lines), encoding="utf-8")
    assert list(load_outcomes(tmp_path)) == [("ut", "a")]


def test_resuming_with_other_settings_is_refused(tmp_path: Path) -> None:
    record = {"backend": "llama", "model_path": "", "max_turns": 3, "samples": 1}
    (tmp_path / CONFIG_FILE).write_text(json.dumps(record), encoding="utf-8")
    check_resumable(tmp_path, record | {"modes": ["ut", "print"]})  # more modes: fine
    with pytest.raises(ConfigMismatch, match="max_turns"):
        check_resumable(tmp_path, record | {"max_turns": 5})


def test_candidates_are_counted_by_the_step_that_wrote_them() -> None:
    """auto's fixes by source (issue 36): the edit search, the model's local edit (a sampled
    hole), the model's whole-function rewrite; each with the strict verdicts."""
    outcomes = [
        outcome(
            "a", (1, 1), (3, 3), mode="auto", found_by="edit search at line 7", verdict="correct"
        ),
        outcome("b", (1, 1), (1, 3), mode="auto", found_by="edit search at line 2"),
        outcome(
            "c",
            (1, 1),
            (3, 3),
            mode="auto",
            found_by="the model at line 4 (sample 3 of 8)",
            verdict="plausible",
        ),
        outcome("d", (1, 1), (3, 3), mode="auto", found_by="", verdict="correct"),
        outcome("e", (0, 1), (0, 3), mode="auto", has_candidate=False),
    ]
    assert [o.fix_source for o in outcomes] == [
        "search", "search", "model local edit", "model rewrite", ""
    ]  # fmt: skip
    stats = mode_stats("auto", outcomes)
    assert stats.by_fix_source == {
        "search": {"correct": 1, "plausible": 0, "wrong": 1},
        "model local edit": {"correct": 0, "plausible": 1, "wrong": 0},
        "model rewrite": {"correct": 1, "plausible": 0, "wrong": 0},
    }
    assert (stats.search_plausible, stats.search_plausible_but_wrong) == (2, 1)
    markdown = render_markdown(build_report(outcomes, ["auto"], {"max_turns": 1}))
    assert "| auto | 1 / 0 / 1 | 0 / 1 / 0 | 1 / 0 / 0 |" in markdown


def test_resuming_a_function_given_run_in_from_failure_form_is_refused(tmp_path: Path) -> None:
    record = {"backend": "llama", "model_path": "", "max_turns": 3, "samples": 1}
    (tmp_path / CONFIG_FILE).write_text(json.dumps(record), encoding="utf-8")  # before the key
    check_resumable(tmp_path, record | {"from_failure": False})
    with pytest.raises(ConfigMismatch, match="from_failure"):
        check_resumable(tmp_path, record | {"from_failure": True})


def test_the_from_failure_form_reports_ranks_and_the_function_repaired() -> None:
    rows = [
        outcome("p/f", (1, 1), (4, 4), mode="search", real=True, from_failure_test="t.py::a",
                suspect_rank=2, evidence_rank=1, suspects_tried=2, repaired="p.py::f",
                verdict="correct"),
        outcome("p/g", (0, 1), (0, 4), mode="search", real=True, from_failure_test="t.py::b",
                suspect_rank=4, evidence_rank=4, suspects_tried=3, repaired="p.py::h",
                has_candidate=False),
    ]  # fmt: skip
    text = render_markdown(build_report(rows, ["search"], {}))
    assert "### From the failure (given only the failing test)" in text
    assert "| search | p/f | t.py::a | 2 | 1 | 2 | p.py::f | fixed | correct |" in text
    assert "| search | p/g | t.py::b | 4 | 4 | 3 | p.py::h | none | - |" in text
    assert (
        "search: 2 cases; the case's function ranked 1st 0, top 3 1, top 5 2; after the "
        "sessions' edits 1st 1, top 3 1; fixed 1" in text
    )
