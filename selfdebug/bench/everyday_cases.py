"""The everyday dev set (docs/bench/everyday/): small projects a user writes, each with one slip.

Why a set of its own: the real-bug cases need a repository's history and its environment, and
the one-file problems are not how a user meets a bug. These are what a developer has on a
Tuesday: a module of a few functions, a `tests/` folder with one failing test, and the slip
whose kind recurs in real fix commits (each case cites one). A session starts from the failing
test's id, as "Self-debug this failure" does; a hidden check (tests the session never sees)
tells the right fix from one that only makes the visible tests pass.

A case folder holds:
- `project/`: the buggy project (its module, `tests/test_*.py`, a minimal `pyproject.toml`);
- `fixed.patch`: the right fix, a `patch -p1` patch relative to `project/`;
- `plausible.patch` (optional): a fix that passes the visible tests and fails the hidden check;
- `hidden/test_hidden_*.py`: the hidden check, copied into `tests/` to score a fix;
- `metadata.json`: `id`, `kind`, `function` (`path::func` or `path::Class.method`, relative to
  `project/`), `failing_test` (its pytest node id), `commit` (`owner/repo@sha`: a real fix
  commit of that kind), `summary`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

METADATA_FILE = "metadata.json"
PROJECT_DIR = "project"
HIDDEN_DIR = "hidden"
FIX_PATCH = "fixed.patch"
PLAUSIBLE_PATCH = "plausible.patch"
SOURCE = "everyday"
_REQUIRED = ("id", "kind", "function", "failing_test", "commit", "summary")


class EverydayError(ValueError):
    """A case folder is malformed, or its patch does not apply (the message says which)."""


@dataclass(frozen=True)
class EverydayCase:
    id: str  # "invoice-bulk-discount"
    kind: str  # "wrong comparison operator"
    function: str  # "invoices.py::bulk_discount", relative to project/
    failing_test: str  # "tests/test_invoices.py::test_bulk_discount_thresholds"
    commit: str  # "owner/repo@sha": a real fix commit of this kind
    summary: str
    folder: Path

    @property
    def source(self) -> str:
        """The report's per-source grouping: the whole set is one source."""
        return SOURCE

    @property
    def path(self) -> str:
        return self.function.split("::", 1)[0]

    @property
    def qualname(self) -> str:
        return self.function.split("::", 1)[1]

    @property
    def project(self) -> Path:
        return self.folder / PROJECT_DIR

    def hidden_files(self) -> list[Path]:
        return sorted((self.folder / HIDDEN_DIR).glob("test_hidden_*.py"))

    def fix_patch(self) -> str:
        return (self.folder / FIX_PATCH).read_text(encoding="utf-8")

    def plausible_patch(self) -> str | None:
        path = self.folder / PLAUSIBLE_PATCH
        return path.read_text(encoding="utf-8") if path.is_file() else None

    def visible_test_files(self) -> list[str]:
        """The project's own test files, relative to its root ("tests/test_x.py")."""
        return sorted(p.relative_to(self.project).as_posix()
                      for p in (self.project / "tests").glob("test_*.py"))  # fmt: skip


def _is_case(folder: Path) -> bool:
    return (folder / METADATA_FILE).is_file() and (folder / PROJECT_DIR).is_dir()


def is_everyday_folder(path: Path) -> bool:
    """An everyday case, or a folder of them: what `--dataset` takes besides real cases."""
    path = Path(path)
    return path.is_dir() and (_is_case(path) or any(_is_case(p) for p in path.iterdir()))


def load_case(folder: Path) -> EverydayCase:
    try:
        meta: dict[str, Any] = json.loads((folder / METADATA_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise EverydayError(f"{folder}: cannot read the case: {error}")
    missing = [key for key in _REQUIRED if not meta.get(key)]
    if missing:
        raise EverydayError(f"{folder / METADATA_FILE}: missing {', '.join(missing)}")
    for key in ("function", "failing_test"):
        if "::" not in str(meta[key]):
            raise EverydayError(f"{folder / METADATA_FILE}: {key} must be path::name")
    if "@" not in str(meta["commit"]) or "/" not in str(meta["commit"]).split("@")[0]:
        raise EverydayError(f"{folder / METADATA_FILE}: commit must be owner/repo@sha")
    if not (folder / FIX_PATCH).is_file():
        raise EverydayError(f"{folder}: no {FIX_PATCH}")
    return EverydayCase(
        id=str(meta["id"]),
        kind=str(meta["kind"]),
        function=str(meta["function"]),
        failing_test=str(meta["failing_test"]),
        commit=str(meta["commit"]),
        summary=str(meta["summary"]),
        folder=folder,
    )


def load_everyday(path: Path) -> list[EverydayCase]:
    """Every case under `path` (sorted by folder name), or `path` itself when it is one."""
    path = Path(path)
    if _is_case(path):
        return [load_case(path)]
    cases = [load_case(folder) for folder in sorted(path.iterdir()) if _is_case(folder)]
    if not cases:
        raise EverydayError(f"{path}: no case folders ({METADATA_FILE} and {PROJECT_DIR}/)")
    ids = [case.id for case in cases]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise EverydayError(f"{path}: two cases have the id {', '.join(twice)}")
    return cases


def apply_patch(root: Path, patch: str) -> None:
    """`patch` applied to the project copy at `root` (paths relative to it, `-p1`)."""
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(root.parent)}  # no repository above
    done = subprocess.run(
        ["git", "apply", "--whitespace=nowarn", "-"],
        cwd=root,
        input=patch,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise EverydayError(f"{root.name}: the patch does not apply: {done.stderr.strip()}")


def copy_project(
    case: EverydayCase, dest: Path, *, patch: str | None = None, hidden: bool = False
) -> Path:
    """A fresh copy of the case's project in `dest`, with `patch` applied and, with `hidden`,
    the hidden check beside the visible tests: nothing of one run leaks into the next."""
    shutil.copytree(
        case.project, dest, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache")
    )
    if patch is not None:
        apply_patch(dest, patch)
    if hidden:
        for file in case.hidden_files():
            shutil.copy2(file, dest / "tests" / file.name)
    return dest
