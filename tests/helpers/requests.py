"""Requests built the way the CLI and the benchmark build theirs: the function and its tests,
then options by their flat names (`max_turns=1`, `transcript_path=...`), which
`request.with_options` puts in their groups; a test names only what it changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from selfdebug.server.engine.request import with_options
from selfdebug.server.engine.types import DebugRequest, TargetSpec


def request_of(
    *, file: Path, qualname: str, project_root: Path, tests: list[str], **options: Any
) -> DebugRequest:
    target = TargetSpec(file=file, qualname=qualname, project_root=project_root, tests=tests)
    return with_options(DebugRequest(target), **options)
