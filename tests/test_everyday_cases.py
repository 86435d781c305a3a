"""The everyday dev set (docs/bench/everyday/): every case is what it says, by real pytest runs.

Each case's buggy project must fail its failing test and the hidden check, its `fixed.patch` must
apply and pass every visible test and the hidden check, and its `plausible.patch` (where there is
one) must pass the visible tests and fail the hidden check. The set must stay a set: at least 30
cases of at least 12 kinds, at most 4 of a kind, each kind citing one real fix commit (the
README's table says which), none from the held-out repositories. The check itself must catch a
broken case, or it proves nothing.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from selfdebug.bench.everyday_cases import (
    EverydayError,
    is_everyday_folder,
    load_everyday,
)
from selfdebug.bench.everyday_check import check_case, check_cases

SET = Path(__file__).resolve().parents[1] / "docs" / "bench" / "everyday"
# the repositories whose fix commits the kinds cite, each read with `git show`: a new one is
# added here on purpose, after checking it is none of the held-out repositories
CITED = {"arrow-py/arrow", "dateutil/dateutil", "jazzband/tablib", "marshmallow-code/marshmallow",
         "pallets/click", "psf/requests", "pytoolz/toolz", "theskumar/python-dotenv"}  # fmt: skip


def test_every_case_is_well_formed(tmp_path: Path) -> None:
    cases = load_everyday(SET)
    problems = check_cases(cases, tmp_path, processes=2)
    assert {case_id: p for case_id, p in problems.items() if p} == {}
    assert len(problems) == len(cases) >= 30


def test_the_set_spans_kinds_each_with_one_cited_commit() -> None:
    cases = load_everyday(SET)
    per_kind = Counter(case.kind for case in cases)
    assert len(per_kind) >= 12
    assert max(per_kind.values()) <= 4
    readme = (SET / "README.md").read_text(encoding="utf-8")
    for kind in per_kind:
        commits = {case.commit for case in cases if case.kind == kind}
        assert len(commits) == 1, f"{kind}: one commit per kind, not {commits}"
        repo, sha = commits.pop().split("@")
        assert repo in CITED, f"{kind}: {repo} is not among the checked repositories"
        assert len(sha) == 40
        assert f"| {kind} |" in readme and f"{repo}@{sha}" in readme, kind
    assert len({case.id for case in cases}) == len(cases)
    assert all(case.folder.name == case.id for case in cases)


def _copy_case(name: str, tmp_path: Path) -> Path:
    folder = tmp_path / "set" / name
    shutil.copytree(SET / name, folder)
    return folder


def test_the_check_catches_a_case_that_measures_nothing(tmp_path: Path) -> None:
    folder = _copy_case("word-tally-shared", tmp_path)
    (folder / "fixed.patch").write_text(
        (folder / "plausible.patch").read_text(encoding="utf-8"), encoding="utf-8"
    )
    meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
    meta["failing_test"] = "tests/test_wordstats.py::test_tally"  # passes on the bug
    (folder / "metadata.json").write_text(json.dumps(meta), encoding="utf-8")
    (folder / "plausible.patch").unlink()
    (folder / "hidden" / "test_hidden_wordstats.py").write_text(
        "def test_nothing():\n    pass\n", encoding="utf-8"
    )

    problems = check_case(load_everyday(folder)[0], tmp_path / "work")

    assert "buggy: tests/test_wordstats.py::test_tally is PASSED" in problems
    assert "buggy: the hidden check passes" in problems


def test_the_check_catches_a_wrong_fix_and_a_plausible_one_that_is_right(tmp_path: Path) -> None:
    folder = _copy_case("word-tally-shared", tmp_path)
    right = (folder / "fixed.patch").read_text(encoding="utf-8")
    wrong = (folder / "plausible.patch").read_text(encoding="utf-8")
    (folder / "fixed.patch").write_text(wrong, encoding="utf-8")
    (folder / "plausible.patch").write_text(right, encoding="utf-8")

    problems = check_case(load_everyday(folder)[0], tmp_path / "work")

    assert any(p.startswith("fixed: the hidden check fails") for p in problems)
    assert "plausible: the hidden check passes" in problems


def test_a_patch_that_does_not_apply_is_reported(tmp_path: Path) -> None:
    folder = _copy_case("units-mm-factor", tmp_path)
    patch = (folder / "fixed.patch").read_text(encoding="utf-8")
    (folder / "fixed.patch").write_text(patch.replace('"mm": 0.01', '"mm": 0.5'), encoding="utf-8")

    problems = check_case(load_everyday(folder)[0], tmp_path / "work")

    assert any("the patch does not apply" in p for p in problems)
    assert "fixed: not run" in problems


def test_malformed_cases_are_refused(tmp_path: Path) -> None:
    folder = _copy_case("units-mm-factor", tmp_path)
    meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
    meta["commit"] = "deadbeef"  # no owner/repo
    (folder / "metadata.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(EverydayError, match="owner/repo@sha"):
        load_everyday(folder)
    assert is_everyday_folder(SET) and is_everyday_folder(folder)
    assert not is_everyday_folder(SET.parent / "real")  # real-bug cases stay real cases
