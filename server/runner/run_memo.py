"""Runs already made, to answer a run whose every test one of them ran on the same code.

A session runs the same tests on the same program more than once as it goes from step to step:
the failing test while localizing and again as the session's baseline, a fix's test file while
verifying it and again when the walk checks the fix against its function's own tests. On a real
project each run costs seconds (pytest's start, the project's plugins and imports). A caller
that only wants the answer (not a second, independent run) asks with `reuse`; the memo answers
when an earlier run requested every test asked for (a file or class id covers its items) on the
same program: the same user tree (`ShadowCopy.tree_key`), the same overridden files and probes.
Runs cut short (error, timeout, cancel) are never kept.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from selfdebug.server.runner.results import RunResult, runs_all
from selfdebug.server.runner.source_files import encode_declared

MEMO_RUNS = 8  # the runs kept: a session's steps reuse the last few


@dataclass(frozen=True)
class ProgramKey:
    """The program a run tests: the user's tree, the files written over it, probes or not."""

    tree: int | None
    overrides: frozenset[tuple[str, str]]  # (user path, sha256 of what was written)
    probes: bool


def program_key(tree: int | None, overrides: Mapping[Path, str], probes: bool) -> ProgramKey:
    """An override that writes the user's own bytes changes nothing and is left out: a session
    runs the function's file as it is through an override, localization without one."""
    changed = set()
    for path, text in overrides.items():
        data = encode_declared(text)
        try:
            if Path(path).read_bytes() == data:
                continue
        except OSError:
            pass
        changed.add((str(path), hashlib.sha256(data).hexdigest()))
    return ProgramKey(tree, frozenset(changed), probes)


@dataclass(frozen=True)
class _Kept:
    key: ProgramKey
    requested: tuple[str, ...]
    result: RunResult


class RunMemo:
    """The last `MEMO_RUNS` complete runs of one runner."""

    def __init__(self, size: int = MEMO_RUNS) -> None:
        self._kept: deque[_Kept] = deque(maxlen=size)

    def keep(self, key: ProgramKey, requested: Sequence[str], result: RunResult) -> None:
        if result.error or result.timed_out or result.cancelled or not result.tests:
            return
        copy = dataclasses.replace(result, tests=list(result.tests), notes=list(result.notes))
        self._kept.append(_Kept(key, tuple(requested), copy))

    def answer(self, key: ProgramKey, requested: Sequence[str]) -> RunResult | None:
        """The newest kept run of `key` that requested every id of `requested`, narrowed to
        the tests those ids cover; None when none did, or a requested id ran no test there."""
        for kept in reversed(self._kept):
            if kept.key == key and runs_all(kept.requested, requested):
                return kept.result.narrowed(kept.requested, requested)
        return None
