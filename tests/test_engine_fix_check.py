"""The model's fixes checked on generated inputs, and the search run on its near misses (issue
26, items 2 and 3), with a scripted model and the REAL runner: a fix that raises where the
original returned is flagged and gives way to a sample without that flaw; a candidate that
passes more chosen tests than the original but not all is finished by the edit search."""

from __future__ import annotations

from pathlib import Path

from helpers.requests import request_of

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.transcript import read_transcript

# `a - b` should be `b - a`: the gaps of sorted values are never negative.
GAP = """def largest_gap(values):
    ordered = sorted(values)
    gap = 0
    for a, b in zip(ordered, ordered[1:]):
        gap = max(gap, a - b)
    return gap
"""
GAP_TESTS = """from gap import largest_gap


def test_gaps():
    assert largest_gap([1, 5, 6]) == 4


def test_equal():
    assert largest_gap([2, 2]) == 0
"""
GOOD_GAP = GAP.replace("a - b", "b - a")
# Passes both tests, but indexes the first two values: fewer than two now raise IndexError,
# where the original returned 0.
OVERFIT_GAP = GOOD_GAP.replace("    gap = 0\n", "    gap = ordered[1] - ordered[0]\n")


def _project(root: Path, module: str, code: str, tests: str) -> Path:
    root.mkdir()
    (root / f"{module}.py").write_text(code, encoding="utf-8")
    (root / f"test_{module}.py").write_text(tests, encoding="utf-8")
    return root


def _request(root: Path, module: str, qualname: str, chosen, wider, **changes) -> DebugRequest:
    return request_of(
        file=root / f"{module}.py",
        qualname=qualname,
        project_root=root,
        tests=[f"test_{module}.py::{n}" for n in chosen],
        wider_tests=[f"test_{module}.py::{n}" for n in wider],
        **changes,
    )


def reply(code: str) -> str:
    return f"Bug: the difference is the wrong way round.\n```python\n{code}```\n"


def test_a_sample_without_the_flaw_is_preferred(tmp_path):
    root = _project(tmp_path / "gap", "gap", GAP, GAP_TESTS)
    transcript = tmp_path / "t.jsonl"
    backend = ScriptedBackend([reply(OVERFIT_GAP), reply(GOOD_GAP)])
    request = _request(
        root, "gap", "largest_gap", ["test_gaps"], ["test_equal"],
        mode="ut", samples=2, max_turns=1, transcript_path=transcript,
    )  # fmt: skip
    result = run_session(request, backend)
    assert result.success and result.fixed_function == GOOD_GAP
    assert not any(w.startswith("generated inputs:") for w in result.warnings)
    events = read_transcript(transcript)
    evidence = next(e for e in events if e["event"] == "fix_evidence")
    assert list(evidence["flaws"]) == ["0"]  # the first sample, ranked first by the vote
    assert evidence["flaws"]["0"].startswith("raises IndexError on largest_gap(")


def test_a_flawed_fix_alone_is_proposed_with_the_evidence(tmp_path):
    root = _project(tmp_path / "gap", "gap", GAP, GAP_TESTS)
    backend = ScriptedBackend([reply(OVERFIT_GAP)])
    request = _request(root, "gap", "largest_gap", ["test_gaps"], ["test_equal"], mode="ut",
                       max_turns=1)  # fmt: skip
    result = run_session(request, backend)
    assert result.success and result.fixed_function == OVERFIT_GAP
    warning = next(w for w in result.warnings if w.startswith("generated inputs:"))
    assert "the fix raises IndexError on largest_gap(" in warning
    assert "where the original returned" in warning
    off = _request(root, "gap", "largest_gap", ["test_gaps"], ["test_equal"], mode="ut",
                   max_turns=1, generated_inputs=0)  # fmt: skip
    unchecked = run_session(off, ScriptedBackend([reply(OVERFIT_GAP)]))
    assert unchecked.success and not any(w.startswith("generated") for w in unchecked.warnings)


# Two slips: `total = v` (a whole statement the edit search cannot rewrite) and `+ 1`.
AVERAGE = """def average(values):
    total = 0
    for v in values:
        total = v
    return total / (len(values) + 1)
"""
AVERAGE_TESTS = """from average import average


def test_balanced():
    assert average([3, -3]) == 0


def test_two():
    assert average([2, 4]) == 3
"""
HALF = AVERAGE.replace("total = v", "total += v")  # 1/2: the model fixed one slip


def test_the_search_finishes_a_near_miss_of_the_model(tmp_path):
    root = _project(tmp_path / "avg", "average", AVERAGE, AVERAGE_TESTS)
    transcript = tmp_path / "t.jsonl"
    backend = ScriptedBackend([reply(HALF)])
    request = _request(
        root,
        "average",
        "average",
        ["test_balanced", "test_two"],
        [],
        mode="auto",
        max_turns=1,
        transcript_path=transcript,
        model_edits_s=0,
    )  # fmt: skip
    result = run_session(request, backend)
    assert result.success, result.warnings
    assert result.model_calls == 1
    assert result.found_by == "edit search at line 5 on the model's candidate of turn 1"
    assert "total += v" in result.fixed_function and "len(values) + 1" not in result.fixed_function
    events = read_transcript(transcript)
    kinds = [e["event"] for e in events]
    assert kinds.count("search") == 2  # on the original (nothing), then on the near miss
    near = next(e for e in events if e["event"] == "near_miss_search")
    assert near["passed"] == "1/2" and near["lines"] == [4]


def test_the_original_alone_is_not_fixed_by_the_search(tmp_path):
    root = _project(tmp_path / "avg", "average", AVERAGE, AVERAGE_TESTS)
    request = _request(root, "average", "average", ["test_balanced", "test_two"], [],
                       mode="search")  # fmt: skip
    result = run_session(request, ScriptedBackend(["never asked"]))
    assert not result.success
