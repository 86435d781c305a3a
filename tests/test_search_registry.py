"""The registry of edit classes (issue 37 item 2, issue 50 item 5): every class is one module of
`server/engine/search/classes/`. One generic test runs every example of every class, the way
cosmic-ray's operator samples are run: the class makes the real fix from the buggy version.
Every class shows enough real fixes, docs/MODES.md's table is the registry's, and a class
added as one file is found, used by the search and listed."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import selfdebug
from selfdebug.server.engine.evidence import Expected
from selfdebug.server.engine.search.edit_class import Example
from selfdebug.server.engine.search.edits import generate_edits
from selfdebug.server.engine.search.registry import (
    CLASSES,
    MIN_EXAMPLE_COMMITS,
    MIN_EXAMPLE_PROJECTS,
    discover,
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


_NEW_CLASS = """\
import ast

from selfdebug.server.engine.search.edit_class import EditClass


class MinForMax(EditClass):
    name = "min-for-max"
    changes = "`min(...)` <-> `max(...)`"
    where = "a call of min or max"
    size = 1
    order = 5

    nodes = (ast.Call,)

    def at(self, node, scope):
        if isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
            start, end = scope.text.span(node.func)
            yield start, end, "max" if node.func.id == "min" else "min"


EDIT_CLASS = MinForMax()
"""

_USE_IT = """\
import json, sys
import selfdebug
from selfdebug.server.engine.search import registry
from selfdebug.server.engine.search.edit_search import SearchSettings, candidate_edits
from selfdebug.server.engine.search.localize import SuspiciousLine
from selfdebug.server.engine.target import locate

target = locate("def largest(a, b):\\n    return min(a, b)\\n", "largest")
edits = candidate_edits(target, [SuspiciousLine(2, 1.0, 1, 1, 0, 0)], SearchSettings())
print(json.dumps({
    "package": selfdebug.__file__,
    "edits": [[e.edit_class, e.code] for e in edits],
    "table": registry.markdown_table(),
    "unproven": [c.name for c in registry.unproven()],
}))
"""


def test_a_class_added_as_one_file_is_used_and_listed(tmp_path: Path) -> None:
    """A copy of the package with one file more in classes/: the search makes that class's
    edit, the table lists it, and the rule of real fixes applies to it."""
    package = Path(selfdebug.__file__).parent
    copy = tmp_path / "selfdebug"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "server/engine/search/classes/min_for_max.py").write_text(_NEW_CLASS, "utf-8")
    done = subprocess.run(
        [sys.executable, "-c", _USE_IT],
        env={"PYTHONPATH": str(tmp_path), "PATH": ""},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert Path(seen["package"]).is_relative_to(tmp_path)
    assert ["min-for-max", "def largest(a, b):\n    return max(a, b)\n"] in seen["edits"]
    assert (
        "| `min-for-max` | `min(...)` <-> `max(...)` | a call of min or max | 1 |"
        in (seen["table"])
    )
    assert seen["unproven"] == ["min-for-max"]


def test_discovery_refuses_two_classes_of_one_order(tmp_path: Path, monkeypatch) -> None:
    package = tmp_path / "twice"
    package.mkdir()
    (package / "__init__.py").write_text("", "utf-8")
    for name in ("first", "second"):
        module = textwrap.dedent(f"""\
            from selfdebug.server.engine.search.edit_class import EditClass

            class C(EditClass):
                name = "{name}"
                order = 7

            EDIT_CLASS = C()
            """)
        (package / f"{name}.py").write_text(module, "utf-8")
    (package / "not_a_class.py").write_text("X = 1\n", "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    import twice  # type: ignore[import-not-found]

    with pytest.raises(TypeError, match="not_a_class has no EDIT_CLASS"):
        discover(twice)
    (package / "not_a_class.py").unlink()
    with pytest.raises(ValueError, match=r"unique order: \[7\]"):
        discover(twice)
