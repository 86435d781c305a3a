"""Typed results of a test run: what the engine, the LSP diagnostics and the CLI read.

Paths in `Frame` are already mapped back from the shadow copy to the user's files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

Outcome = Literal["passed", "failed", "error", "skipped", "timeout"]


def nodeid_file(nodeid: str) -> str:
    """The file part of a pytest node id ("tests/test_x.py::C::t[1]" -> "tests/test_x.py")."""
    return nodeid.partition("::")[0]


def nodeid_covers(requested: str, nodeid: str) -> bool:
    """Whether running `requested` runs `nodeid`: the same test, one of its parametrized cases
    ("t" covers "t[1]") or an item inside the file or class it names ("f.py" covers "f.py::t").
    The engine (which requested tests got no result) and the runner (which were never collected)
    must agree on this."""
    return nodeid == requested or nodeid.startswith((requested + "[", requested + "::"))


def runs_all(ran: Sequence[str], requested: Sequence[str]) -> bool:
    """Whether a run of the ids `ran` runs every id of `requested`."""
    return all(any(nodeid_covers(r, q) for r in ran) for q in requested)


@dataclass
class Frame:
    path: str  # absolute path in the USER's tree (not the shadow copy)
    line: int  # 1-based
    function: str
    code: str = ""  # the source line, stripped


@dataclass
class ProbeRecord:
    """One line of the instrumentation side channel (see instrument/)."""

    probe: str  # probe id
    line: int  # 1-based source line in the original (uninstrumented) file
    kind: str  # entry | loop | assign | branch | return | raise | print (model prints)
    values: dict[str, str]  # variable name -> bounded repr
    test: str = ""  # pytest node id active when the record was written
    text: str = ""  # for model-written prints: the printed text


@dataclass
class TestResult:
    nodeid: str
    outcome: Outcome
    duration: float = 0.0
    exc_type: str = ""
    exc_module: str = ""  # the module that defines it ("json.decoder"), "" for a builtin
    message: str = ""  # exception message, first lines
    assert_left: str | None = None  # pytest assertion introspection, when available
    assert_right: str | None = None
    assert_op: str | None = None
    frames: list[Frame] = field(default_factory=list)  # innermost last
    stdout: str = ""  # truncated with a marker
    stderr: str = ""
    longrepr: str = ""  # pytest's failure text, truncated
    probes: list[ProbeRecord] = field(default_factory=list)
    probes_truncated: bool = False

    @property
    def ok(self) -> bool:
        return self.outcome in ("passed", "skipped")


@dataclass
class RunResult:
    tests: list[TestResult]
    isolation: str  # "bwrap" | "rlimits" (fallback)
    duration: float
    timed_out: bool = False  # the outer watchdog fired
    cancelled: bool = False
    error: str = ""  # a run-level problem (collection error, interpreter without pytest...)
    exit_code: int | None = None
    notes: list[str] = field(default_factory=list)  # e.g. "pytest-timeout missing: watchdog only"

    @property
    def passed(self) -> int:
        return sum(1 for t in self.tests if t.ok)

    @property
    def total(self) -> int:
        return len(self.tests)

    @property
    def all_passed(self) -> bool:
        return not self.error and self.total > 0 and self.passed == self.total

    def by_id(self) -> dict[str, TestResult]:
        return {t.nodeid: t for t in self.tests}

    def no_longer_passing(self, before: RunResult) -> list[str]:
        """The tests that passed in `before` and fail here, or did not run here: what a change
        broke."""
        now = self.by_id()
        return [t.nodeid for t in before.tests
                if t.ok and (t.nodeid not in now or not now[t.nodeid].ok)]  # fmt: skip

    def narrowed(self, ran: Sequence[str], requested: Sequence[str]) -> RunResult | None:
        """This run (of the ids `ran`) as a run of `requested` would have reported it: the tests
        those ids cover. None when some requested id was not run here (no id of `ran` covers
        it) or covers no test of it, or this run was cut short: only a run of its own says why."""
        if self.error or self.timed_out or self.cancelled:
            return None
        if not runs_all(ran, requested):
            return None
        tests = [t for t in self.tests if any(nodeid_covers(q, t.nodeid) for q in requested)]
        narrowed = replace(self, tests=tests, notes=list(self.notes))
        return None if narrowed.missing(requested) else narrowed

    def missing(self, requested: Sequence[str]) -> list[str]:
        """The requested ids with no result here (a parametrized or file/class id matches its
        items)."""
        seen = [t.nodeid for t in self.tests]
        return [n for n in requested if not any(nodeid_covers(n, s) for s in seen)]

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"passed": self.passed, "total": self.total}


@dataclass
class CollectedItem:
    nodeid: str
    path: Path  # the user's file
    line: int  # 1-based line of the test definition
    domain: str  # "test_func[param]" or "TestClass.test_method"


@dataclass
class CollectError:
    nodeid: str
    path: str  # the user's file
    line: int  # 1-based; 0 when unknown
    exc_type: str
    message: str
    longrepr: str = ""

    def describe(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.exc_type}: {self.message}".strip()


@dataclass
class CollectResult:
    items: list[CollectedItem]
    errors: list[CollectError]
    isolation: str
    error: str = ""  # run-level problem (interpreter without pytest, killed, usage error)
    notes: list[str] = field(default_factory=list)  # what the environment lacks, with the fix


def failure_detail(
    test: TestResult,
    actual: Literal["left", "right"] | None = "left",
    clip: Callable[[str], str] = str.strip,
) -> str:
    """What went wrong in one test, in the words the model's prompt and the editor's diagnostics
    share: "timed out", "got 3, expected 2", "assert 3 < 2 is false", "ValueError: bad input".

    `actual` is the side of an `==` assertion that holds what the function returned (None when
    the caller cannot tell: then no side is called "got"); `clip` shortens each value."""
    if test.outcome == "timeout":
        return "timed out"
    if test.assert_left is not None and test.assert_right is not None:
        left, right, op = clip(test.assert_left), clip(test.assert_right), test.assert_op or "=="
        if op == "==" and actual is not None:
            got, expected = (left, right) if actual == "left" else (right, left)
            return f"got {got}, expected {expected}"
        return f"assert {left} {op} {right} is false"
    message = clip(test.message or "") if (test.message or "").strip() else ""
    return ": ".join(filter(None, [test.exc_type, message])) or test.outcome
