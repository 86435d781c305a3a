"""The shadow copy: what it skips, how it follows the user's edits, and how it undoes what tests
and overrides did to it."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfdebug.server.runner import ShadowCopy


def files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for rel, text in {
        "pkg/__init__.py": "",
        "pkg/mod.py": "X = 1\n",
        "tests/test_mod.py": "def test_x():\n    pass\n",
        "data/table.csv": "a,b\n1,2\n",
        ".git/HEAD": "ref\n",
        ".venv/bin/python": "#!",
        "node_modules/x/index.js": "1",
        "pkg/__pycache__/mod.cpython-311.pyc": "\0",
        "envs/myenv/pyvenv.cfg": "home = /usr\n",
        "envs/myenv/lib/site.py": "",
        "build/lib/pkg/mod.py": "X = 0\n",
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_copies_sources_and_skips_vcs_envs_and_caches(project: Path) -> None:
    shadow = ShadowCopy(project)
    try:
        stats = shadow.sync()
        assert sorted(files(shadow.root)) == [
            "data/table.csv",
            "pkg/__init__.py",
            "pkg/mod.py",
            "tests/test_mod.py",
        ]
        assert stats.copied == 4 and stats.files == 4
        assert shadow.sync().copied == 0  # warm: nothing changed, nothing copied
        assert shadow.to_user(shadow.root / "pkg" / "mod.py") == project / "pkg" / "mod.py"
        assert shadow.to_user("/elsewhere/mod.py") is None
    finally:
        shadow.close()
    assert not shadow.root.exists()


def test_follows_edits_and_deletions_of_the_user(project: Path) -> None:
    shadow = ShadowCopy(project)
    shadow.sync()
    (project / "pkg" / "mod.py").write_text("X = 22\n")
    (project / "data" / "table.csv").unlink()
    (project / "pkg" / "new.py").write_text("Y = 1\n")
    stats = shadow.sync()
    assert (stats.copied, stats.removed) == (2, 1)
    assert files(shadow.root) == {
        k: v
        for k, v in files(project).items()
        if not k.startswith((".", "node", "envs", "build")) and "__pycache__" not in k
    }
    shadow.close()


def test_undoes_what_tests_and_overrides_did(project: Path) -> None:
    shadow = ShadowCopy(project)
    shadow.sync()
    expected = files(shadow.root)
    # what a test might do to its copy
    (shadow.root / "pkg" / "mod.py").write_text("X = 'tampered'\n")
    (shadow.root / "pkg" / "__init__.py").unlink()
    (shadow.root / "junk").mkdir()
    (shadow.root / "junk" / "out.txt").write_text("x")
    with shadow.overridden({project / "tests" / "test_mod.py": "def test_x():\n    assert 0\n"}):
        assert (shadow.root / "tests" / "test_mod.py").read_text().endswith("assert 0\n")
    shadow.sync()
    assert files(shadow.root) == expected
    assert not (shadow.root / "junk").exists()
    shadow.close()


def test_parallel_cold_copy_of_many_files(tmp_path: Path) -> None:
    root = tmp_path / "big"
    for index in range(600):
        path = root / f"pkg{index // 100}" / f"m{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"V = {index}\n")
    shadow = ShadowCopy(root)
    assert shadow.sync().copied == 600
    assert files(shadow.root) == files(root)
    shadow.close()
