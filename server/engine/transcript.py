"""The session's record, written as JSON lines while the session runs (so a crash or a cancel
still leaves everything up to that point): every prompt, completion, token count, timing and test
result. Also kept in memory for tests and for the benchmark. Secrets are scrubbed from every
record (`redact.scrub_value`): a test may have raised a credential in its message."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from selfdebug.server.engine.redact import scrub_value

if TYPE_CHECKING:
    from selfdebug.server.runner.results import RunResult


def _default(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return repr(value)


class Transcript:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.events: list[dict[str, Any]] = []
        self._started = time.monotonic()
        self._lock = threading.Lock()
        self._file: IO[str] | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("w", encoding="utf-8")

    def write(self, event: str, **fields: Any) -> dict[str, Any]:
        record = {"event": event, "t": round(time.monotonic() - self._started, 3), **fields}
        # Plain JSON values first, then every string scrubbed of secrets (redact.py).
        plain = scrub_value(json.loads(json.dumps(record, default=_default)))
        line = json.dumps(plain, ensure_ascii=False)
        with self._lock:
            self.events.append(json.loads(line))
            if self._file is not None:
                self._file.write(line + "\n")
                self._file.flush()
        return record

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


def read_transcript(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def compact_run(run: RunResult) -> dict[str, Any]:
    """A test run as the transcript keeps it: the tally and each test's outcome, in short."""
    return {
        "passed": run.passed,
        "total": run.total,
        "error": run.error,
        "timed_out": run.timed_out,
        "isolation": run.isolation,
        "duration": round(run.duration, 3),
        "tests": [
            {
                "nodeid": t.nodeid,
                "outcome": t.outcome,
                "exc_type": t.exc_type,
                "message": t.message[:300],
                "assert_left": t.assert_left,
                "assert_right": t.assert_right,
                "probes": len(t.probes),
            }
            for t in run.tests
        ],
    }
