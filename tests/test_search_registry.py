"""The registry of edit classes (issue 37 item 2, issue 50 item 5): every class is one module of
`server/engine/search/classes/`. One generic test runs every example of every class, the way
cosmic-ray's operator samples are run: the class makes the real fix from the buggy version.
Every class shows enough real fixes, and docs/MODES.md's table is the registry's."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from selfdebug.server.engine.evidence import Expected
from selfdebug.server.engine.search.edit_class import Example
from selfdebug.server.engine.search.edits import generate_edits
from selfdebug.server.engine.search.registry import (
    CLASSES,
    MIN_EXAMPLE_COMMITS,
    MIN_EXAMPLE_PROJECTS,
    unproven,
    with_table,
)

MODES_MD = Path(__file__).parent.parent / "docs" / "MODES.md"
CASES = [(c.name, example) for c in CLASSES for example in c.examples]


def _same(a: str, b: str) -> bool:
    return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))


@pytest.mark.parametrize(
    ("name", "example"), CASES, ids=[f"{n}:{e.source.split('@')[0]}" for n, e in CASES]
)
def test_the_class_makes_the_real_fix(name: str, example: Example) -> None:
    expected = Expected(raises=example.raises, failed_with=example.failed_with)
    ranks = dict.fromkeys(example.lines, 0)
    edits = generate_edits(
        example.before,
        1,
        ranks,
        limit=3000,
        expected=expected,
        classes={name},
        class_name=example.class_name,
    )
    assert edits, f"{name} makes no edit of {example.source}"
    assert any(_same(e.code, example.after) for e in edits), example.source
    assert {e.edit_class for e in edits} == {name}


def test_every_example_cites_a_commit() -> None:
    for edit_class in CLASSES:
        for example in edit_class.examples:
            repo, at, rest = example.source.partition("@")
            commit, colon, place = rest.partition(":")
            assert repo.count("/") == 1 and at and len(commit) >= 7 and colon and "::" in place


def test_every_class_shows_real_fixes_from_several_projects() -> None:
    thin = [f"{c.name}: {len(c.examples)} in {len(c.projects())}" for c in unproven()]
    assert not thin, f"need {MIN_EXAMPLE_COMMITS} commits in {MIN_EXAMPLE_PROJECTS}: {thin}"


def test_modes_md_table_is_the_registry() -> None:
    document = MODES_MD.read_text(encoding="utf-8")
    assert with_table(document) == document, (
        "docs/MODES.md's table of edit classes is not the registry's; write it with "
        "`python -m selfdebug.server.engine.search.registry docs/MODES.md`"
    )


def test_the_registry_command_writes_the_table(tmp_path: Path) -> None:
    stale = MODES_MD.read_text(encoding="utf-8").replace("| `pair` |", "| `a pair` |")
    (tmp_path / "MODES.md").write_text(stale, encoding="utf-8")
    command = [sys.executable, "-m", "selfdebug.server.engine.search.registry", "MODES.md"]
    subprocess.run(command, cwd=tmp_path, check=True, timeout=60)
    assert (tmp_path / "MODES.md").read_text(encoding="utf-8") == MODES_MD.read_text("utf-8")
