"""What one `selfdebug fix` run came to, gathered while it runs: what `--json` prints and
`--save-patch` saves.

Why its own record: the text report prints as the run goes, in both forms (a function, or a
failing test: fix_failure.py); a script's JSON and a saved fix need the same facts at the end,
and the bytes of each file as the session read them (a saved fix is applied only over those),
so the commands note them here instead of each output reading the files again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from selfdebug.server.runner.safe_read import read_regular
from selfdebug.server.runner.source_files import decode_source

if TYPE_CHECKING:
    from selfdebug.server.engine.suspects.localize import FailureLocalization
    from selfdebug.server.engine.suspects.repair import SuspectAttempt
    from selfdebug.server.engine.types import DebugRequest, DebugResult


@dataclass
class FixOutcome:
    started: float = field(default_factory=time.monotonic)
    form: Literal["function", "failure"] = "function"  # a function named, or a failing test
    request: DebugRequest | None = None  # the session shown (from a failure: the fix's or the last)
    result: DebugResult | None = None
    # each file a session started from, its bytes as read then (the last session's read wins)
    originals: dict[Path, bytes] = field(default_factory=dict)
    fix_files: dict[Path, str] = field(default_factory=dict)  # the fix: file -> its new text
    functions: list[tuple[Path, str]] = field(default_factory=list)  # the fix's, 1 or 2
    written: bool = False  # the fix was written to its files (--write)
    patch: Path | None = None  # where --save-patch saved it
    # from a failing test: the tests, the ranking and each suspect's session
    tests: list[str] = field(default_factory=list)
    failure: FailureLocalization | None = None
    attempts: list[SuspectAttempt] = field(default_factory=list)

    def read(self, path: Path) -> str:
        """The file's text as Python decodes it (fix_delivery.py's `read_text`), its bytes noted
        as the session's start. Raises OSError, SyntaxError or UnicodeDecodeError."""
        data = read_regular(path)
        text = decode_source(data)[0]
        self.originals[path] = data
        return text

    def shown(self, request: DebugRequest, result: DebugResult) -> None:
        """The session the report shows, and its fix when it is one (one file)."""
        self.request, self.result = request, result
        if result.success and result.fixed_file is not None:
            self.fix_files = {request.target.file: result.fixed_file}
            self.functions = [(request.target.file, request.target.qualname)]

    @property
    def root(self) -> Path | None:
        return self.request.target.project_root if self.request is not None else None

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started
