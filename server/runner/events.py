"""What our pytest plugin says, typed: one dataclass per event, parsed by pure functions.

Why typed and in one place: the plugin (`_selfdebug_pytest_plugin_v1.py`) writes JSON lines that
the watchdog (supervision.py) and the result assembly (assembly.py) both read. Parsing them once
here gives each reader named fields, and a line that is not a well-formed event (a test can write
into the stream's folder) is dropped in one place instead of failing deep inside a run. The probe
side channel (instrument/runtime) is decoded here too, for the same reasons.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast, get_args

from selfdebug.server.runner.results import Outcome, ProbeRecord

PLUGIN_MODULE = "_selfdebug_pytest_plugin_v1"
OUTCOMES: tuple[str, ...] = get_args(Outcome)


@dataclass(frozen=True)
class Configured:
    pid: int
    rootdir: str


@dataclass(frozen=True)
class CollectedEntry:
    nodeid: str
    path: str  # the file in the shadow copy
    line: int  # 1-based line of the test definition
    domain: str  # "test_func[param]" or "TestClass.test_method"


@dataclass(frozen=True)
class Collected:
    """pytest's collection is over: the tests it will run, in order."""

    items: tuple[CollectedEntry, ...]


@dataclass(frozen=True)
class CollectionError:
    """A file (or class) could not be collected, with the exception that stopped it."""

    nodeid: str
    path: str  # shadow path (or the original file for a SyntaxError's own filename)
    line: int  # 1-based; 0 when unknown
    exc_type: str
    message: str
    longrepr: str


@dataclass(frozen=True)
class CollectionFailed:
    """pytest's collect report failed (also sent when `CollectionError` was not)."""

    nodeid: str
    longrepr: str


@dataclass(frozen=True)
class StartedTest:
    nodeid: str


@dataclass(frozen=True)
class RawFrame:
    path: str  # as the traceback has it (a shadow path for project files)
    line: int  # 1-based line of what ran (instrumented files: the instrumented line)
    function: str
    code: str = ""


@dataclass(frozen=True)
class FinishedTest:
    """One test's result over its setup, call and teardown."""

    nodeid: str
    outcome: Outcome
    duration: float = 0.0
    exc_type: str = ""
    exc_module: str = ""  # the module that defines it ("json.decoder"), "" for a builtin
    message: str = ""
    assert_op: str | None = None
    assert_left: str | None = None
    assert_right: str | None = None
    frames: tuple[RawFrame, ...] = ()
    stdout: str = ""
    stderr: str = ""
    longrepr: str = ""


@dataclass(frozen=True)
class SessionFinished:
    """Every test has run (`pytest_sessionfinish`); what is still running was left behind."""

    exit_status: int


@dataclass(frozen=True)
class Unconfigured:
    """pytest is done with everything; only the interpreter's shutdown is left."""


Event = (
    Configured
    | Collected
    | CollectionError
    | CollectionFailed
    | StartedTest
    | FinishedTest
    | SessionFinished
    | Unconfigured
)
E = TypeVar("E", bound=Event)


# -- parsing ---------------------------------------------------------------------------------------
def _text(value: Any) -> str:
    """An optional text field: missing or null is ""."""
    return str(value) if value else ""


def _optional_text(value: Any) -> str | None:
    return None if value is None else str(value)


def _frame(raw: Mapping[str, Any]) -> RawFrame:
    path, line, function = str(raw["path"]), int(raw["line"]), str(raw["function"])
    return RawFrame(path, line, function, _text(raw.get("code")))


def _entry(raw: Mapping[str, Any]) -> CollectedEntry:
    nodeid, path, domain = str(raw["nodeid"]), str(raw["path"]), str(raw["domain"])
    return CollectedEntry(nodeid, path, int(raw["line"]), domain)


def _finished(raw: Mapping[str, Any]) -> FinishedTest:
    outcome = raw["outcome"]
    if outcome not in OUTCOMES:
        raise ValueError(f"unknown outcome {outcome!r}")
    return FinishedTest(
        nodeid=str(raw["nodeid"]),
        outcome=cast(Outcome, outcome),
        duration=float(raw.get("duration") or 0.0),
        exc_type=_text(raw.get("exc_type")),
        exc_module=_text(raw.get("exc_module")),
        message=_text(raw.get("message")),
        assert_op=_optional_text(raw.get("assert_op")),
        assert_left=_optional_text(raw.get("assert_left")),
        assert_right=_optional_text(raw.get("assert_right")),
        frames=tuple(_frame(f) for f in raw.get("frames") or ()),
        stdout=_text(raw.get("stdout")),
        stderr=_text(raw.get("stderr")),
        longrepr=_text(raw.get("longrepr")),
    )


def _collection_error(raw: Mapping[str, Any]) -> CollectionError:
    return CollectionError(
        nodeid=str(raw["nodeid"]),
        path=str(raw["path"]),
        line=int(raw.get("line") or 0),
        exc_type=_text(raw.get("exc_type")),
        message=_text(raw.get("message")),
        longrepr=_text(raw.get("longrepr")),
    )


_PARSERS: dict[str, Callable[[Mapping[str, Any]], Event]] = {
    "configure": lambda raw: Configured(int(raw.get("pid") or 0), _text(raw.get("rootdir"))),
    "collected": lambda raw: Collected(tuple(_entry(i) for i in raw["items"])),
    "collect_error": _collection_error,
    "collect_failed": lambda raw: CollectionFailed(str(raw["nodeid"]), _text(raw.get("longrepr"))),
    "start": lambda raw: StartedTest(str(raw["nodeid"])),
    "result": _finished,
    "finish": lambda raw: SessionFinished(int(raw.get("exitstatus", 0))),
    "unconfigured": lambda raw: Unconfigured(),
}


def parse_event(raw: object) -> Event | None:
    """The typed event for one decoded JSON line; None when it is not one of the plugin's."""
    if not isinstance(raw, dict):
        return None
    parser = _PARSERS.get(str(raw.get("event")))
    if parser is None:
        return None
    try:
        return parser(raw)
    except (KeyError, TypeError, ValueError):
        return None


@dataclass(frozen=True)
class ProbesTruncated:
    """The probe runtime stopped logging (its cap): for `test`, or for every test when None."""

    test: str | None


def parse_probe_record(raw: object) -> ProbeRecord | ProbesTruncated | None:
    """One line of the probe side channel (see instrument/runtime); None when malformed."""
    if not isinstance(raw, dict):
        return None
    test = raw.get("test")
    if raw.get("truncated"):
        return ProbesTruncated(test if isinstance(test, str) else None)
    try:
        return ProbeRecord(
            probe=str(raw.get("probe", "")),
            line=int(raw.get("line", 0)),
            kind=str(raw.get("kind", "")),
            values={str(k): str(v) for k, v in (raw.get("values") or {}).items()},
            test=str(raw.get("test", "")),
            text=str(raw.get("text", "")),
        )
    except (AttributeError, TypeError, ValueError):
        return None


class JsonLines:
    """Decodes a JSON-lines stream read in pieces: complete lines only (a partial last line waits
    for the rest), lines that are not JSON skipped."""

    def __init__(self) -> None:
        self._partial = b""

    def feed(self, data: bytes) -> list[object]:
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        decoded = []
        for line in lines:
            try:
                decoded.append(json.loads(line))
            except ValueError:
                continue
        return decoded


def parse_events(lines: Iterable[object]) -> list[Event]:
    """The plugin's events among decoded JSON lines, in order."""
    return [event for event in map(parse_event, lines) if event is not None]


@dataclass
class EventLog:
    """Every event one pytest process sent, in order, with the questions the runner asks of it."""

    events: list[Event] = field(default_factory=list)

    def append(self, event: Event) -> None:
        self.events.append(event)

    def extend(self, events: Iterable[Event]) -> None:
        self.events.extend(events)

    def of(self, kind: type[E]) -> list[E]:
        return [event for event in self.events if isinstance(event, kind)]

    def collected(self) -> list[CollectedEntry]:
        """What the last collection found ([] when pytest never finished collecting)."""
        collections = self.of(Collected)
        return list(collections[-1].items) if collections else []

    def collected_ids(self) -> list[str]:
        return [entry.nodeid for entry in self.collected()]

    def has_collected(self) -> bool:
        return bool(self.of(Collected))

    def results(self) -> list[FinishedTest]:
        return self.of(FinishedTest)
