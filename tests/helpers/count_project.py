"""A one-test project the tests cannot decide: `count_at_least` compares with `>` where `>=` is
meant, and its one test passes with `>=`, with `kept = 1` and with other one-token edits, which
differ on other inputs (the search's undecided survivors, the model's vote)."""

from __future__ import annotations

from pathlib import Path

COUNT = """def count_at_least(values, limit):
    kept = 0
    for x in values:
        if x > limit:
            kept += 1
    return kept
"""
COUNT_TESTS = """from count import count_at_least


def test_two_at_least_two():
    assert count_at_least([1, 2, 3], 2) == 2
"""


def write_count_project(root: Path) -> Path:
    """`count.py` and `test_count.py` in `root` (made if missing)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "count.py").write_text(COUNT, encoding="utf-8")
    (root / "test_count.py").write_text(COUNT_TESTS, encoding="utf-8")
    return root
