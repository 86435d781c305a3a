"""Real-bug cases: a historical bug-fix commit of a real repository, with the bug put back.

Why: a user never debugs a one-file benchmark problem; they debug a function of their repository,
whose tests are spread over files and reach it through imports, classes and wrappers. A case is
the fix commit of a real project, a patch that re-introduces the bug in one function, and the
project's own test files that judge a fix. Only the patch and its metadata are kept (in
`docs/bench/real/<case>/`), never the repository's code: the repositories themselves are git
checkouts on this machine (`--repos DIR`, one folder per repository, named as `checkout` says).

A case folder holds:
- `metadata.json`: `id`, `repo` (owner/name), `license`, `checkout` (folder under --repos),
  `commit` (the fix commit), `function` (`path::func` or `path::Class.method`), `judge` (test
  files run on a proposed fix), optional `extras` (the project's optional-dependency groups to
  install), `install` (more requirements its tests need) and `requirements` (the project's own
  requirement files to `pip install -r`, paths in the repository), `subject` (the fix's commit
  message), `tags` (method, src-layout, unittest, parametrized, ...).
- `bug.patch`: a `git apply` patch against `commit` that changes only that function.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

METADATA_FILE = "metadata.json"
PATCH_FILE = "bug.patch"
_REQUIRED = ("id", "repo", "license", "checkout", "commit", "function", "judge")


class CaseError(ValueError):
    """A case folder is malformed, or its checkout or patch cannot be used (message says which)."""


@dataclass(frozen=True)
class RealCase:
    id: str  # "toolz/partition_all"
    repo: str  # "pytoolz/toolz" (where the history comes from)
    license: str
    checkout: str  # folder name of the git checkout under --repos
    commit: str  # the fix commit: the judge passes here
    function: str  # "toolz/itertoolz.py::partition_all"
    judge: tuple[str, ...]  # test files (relative paths) that score a proposed fix
    patch: str  # re-introduces the bug (applied on `commit`)
    extras: tuple[str, ...] = ()
    install: tuple[str, ...] = ()
    requirements: tuple[str, ...] = ()  # the project's requirement files (`pip install -r`)
    subject: str = ""
    tags: tuple[str, ...] = ()
    folder: Path | None = field(default=None, compare=False)

    @property
    def source(self) -> str:
        """The report's per-source grouping: the repository."""
        return self.repo

    @property
    def path(self) -> str:
        return self.function.split("::", 1)[0]

    @property
    def qualname(self) -> str:
        return self.function.split("::", 1)[1]


def is_case_folder(path: Path) -> bool:
    """A folder of cases (or one case): what `--dataset` takes besides a JSONL file."""
    return Path(path).is_dir()


def load_case(folder: Path) -> RealCase:
    try:
        meta: dict[str, Any] = json.loads((folder / METADATA_FILE).read_text(encoding="utf-8"))
        patch = (folder / PATCH_FILE).read_text(encoding="utf-8")
    except (OSError, ValueError) as error:
        raise CaseError(f"{folder}: cannot read the case: {error}")
    missing = [key for key in _REQUIRED if not meta.get(key)]
    if missing:
        raise CaseError(f"{folder / METADATA_FILE}: missing {', '.join(missing)}")
    if "::" not in str(meta["function"]):
        raise CaseError(f"{folder / METADATA_FILE}: function must be path::name")
    return RealCase(
        id=str(meta["id"]),
        repo=str(meta["repo"]),
        license=str(meta["license"]),
        checkout=str(meta["checkout"]),
        commit=str(meta["commit"]),
        function=str(meta["function"]),
        judge=tuple(str(j) for j in meta["judge"]),
        patch=patch,
        extras=tuple(str(e) for e in meta.get("extras", ())),
        install=tuple(str(i) for i in meta.get("install", ())),
        requirements=tuple(str(r) for r in meta.get("requirements", ())),
        subject=str(meta.get("subject", "")),
        tags=tuple(str(t) for t in meta.get("tags", ())),
        folder=folder,
    )


def requested_ids(values: list[str] | None) -> list[str] | None:
    """`--ids a b,c` as a list (repeated or comma-separated); None when none were given."""
    ids = [i for chunk in values or [] for i in chunk.split(",") if i]
    return ids or None


def cases_with_ids(path: Path, ids: list[str] | None) -> list[RealCase]:
    """The cases under `path`, only those of `ids` when given."""
    return [c for c in load_cases(path) if not ids or c.id in ids]


def load_cases(path: Path) -> list[RealCase]:
    """Every case under `path` (a folder of case folders, sorted by name), or `path` itself."""
    path = Path(path)
    if (path / METADATA_FILE).is_file():
        return [load_case(path)]
    folders = sorted(p for p in path.iterdir() if (p / METADATA_FILE).is_file())
    if not folders:
        raise CaseError(f"{path}: no case folders (each needs {METADATA_FILE} and {PATCH_FILE})")
    cases = [load_case(folder) for folder in folders]
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise CaseError(f"{path}: two cases have the id {case.id}")
        seen.add(case.id)
    return cases


def _git(args: list[str], cwd: Path | None = None, stdin: str | None = None) -> str:
    completed = subprocess.run(
        ["git", *args], cwd=cwd, input=stdin, capture_output=True, text=True, check=False
    )
    if completed.returncode != 0:
        detail = (completed.stderr or completed.stdout).strip().splitlines()[-1:] or ["failed"]
        raise CaseError(f"git {' '.join(args[:2])}: {detail[0]}")
    return completed.stdout


def checkout_path(case: RealCase, repos: Path | None) -> Path:
    if repos is None:
        raise CaseError(
            f"{case.id}: real cases need --repos DIR (the folder holding the {case.checkout} "
            "git checkout)"
        )
    path = Path(repos) / case.checkout
    if not (path / ".git").exists() and not (path / "HEAD").is_file():
        raise CaseError(f"{case.id}: {path} is not a git checkout")
    return path


def clone_case(case: RealCase, repos: Path | None, dest: Path, *, buggy: bool) -> Path:
    """A fresh clone of the case's repository at its fix commit in `dest` (with the bug put back
    when `buggy`): nothing of one case's run can leak into the next."""
    source = checkout_path(case, repos)
    dest.parent.mkdir(parents=True, exist_ok=True)
    _git(["clone", "--quiet", "--no-checkout", str(source), str(dest)])
    _git(["-c", "advice.detachedHead=false", "checkout", "--quiet", case.commit], cwd=dest)
    if buggy:
        _git(["apply", "--whitespace=nowarn", "-"], cwd=dest, stdin=case.patch)
    return dest


def patched_paths(case: RealCase) -> list[str]:
    """The files the bug patch changes (from its `+++ b/...` lines)."""
    return [
        line[len("+++ b/") :].strip()
        for line in case.patch.splitlines()
        if line.startswith("+++ b/")
    ]
