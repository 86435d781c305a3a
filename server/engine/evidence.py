"""The failing tests' evidence, read once from the runner's results and shared by every reader.

Why one value: what a failing test compared (and so what counts as "the expected value"), the
exceptions it expects raised, pytest's `where` account of a call, and which frame is the test's
own line used to be read from a test's text by six modules, each a little differently: a change
to one reading had to be made six times, and the refusal of test data written into the code
(overfitting.py) could read the failure otherwise than the search that made the candidate.
`Evidence.of(run)` reads a run once; the edit search, the overfitting refusal, the model's
prompts (feedback.py, model_edits/fim_prompt.py), the suspects' ranking and the editor's hover
read its facts and word them their own way. No other module parses a test result's text.

Where two readers read a fact differently, both readings are here under names that say the
difference (`first_frame` / `asserting_frame` / `test_file_frames`, `timed_out` /
`ended_in_timeout`): making them one would change verdicts, a step to take measured.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from selfdebug.server.runner.results import Frame, Outcome, RunResult, TestResult, nodeid_file

MAX_EXCEPTIONS = 3  # expected exception names the search tries

# `pytest.raises(X)`, `raises(X, ...)`, `assertRaises(X, ...)`: pytest shows the test's source
# around the failure, so the failure text names the exceptions the test expects.
_EXPECTS = re.compile(
    r"\b(?:pytest\.raises|raises|assertRaises|assertRaisesRegex)\(\s*(?:\(\s*)?([A-Za-z_][\w.]*)"
)
_WHERE = re.compile(r"^E\s+\+\s+where\s+(.+?)\s+=\s+(.+)$")  # `E  + where 3 = f(1)`
_LIBRARY_PATH = re.compile(r"[/\\](site-packages|dist-packages|lib[/\\]python3\.\d+)[/\\]")


@dataclass(frozen=True)
class Where:
    """One `E  + where VALUE = CALL` line of pytest's assertion explanation: what a call in the
    failing assertion returned, both as pytest wrote them."""

    value: str
    call: str

    def calls(self, name: str) -> bool:
        """Whether the call is of `name` (`median(...)`, `obj.median(...)`)."""
        return re.match(rf"(?:[\w.<>\[\]() ]*\.)?{re.escape(name)}\(", self.call) is not None


@dataclass(frozen=True)
class FailingTest:
    """What one failing test's result says, parsed; `result` is the runner's record (its
    shared wording, `failure_detail`, and text shown as it is)."""

    result: TestResult
    raised: str = ""  # the exception it ended with, the last dotted part ("TypeError")
    expects_raised: tuple[str, ...] = ()  # exceptions its shown source expects, first first
    left_value: object | None = None  # the assertion's sides as values (None: no literal)
    right_value: object | None = None
    unittest_sides: tuple[str, str] | None = None  # `'a' != 'b'` on unittest's first line
    unittest_values: tuple[object | None, ...] = ()
    where: tuple[Where, ...] = ()  # pytest's `where` lines, in order
    message_lines: tuple[str, ...] = ()  # the exception's message, stripped, by line

    @classmethod
    def of(cls, test: TestResult) -> FailingTest:
        sides = _unittest_sides(test.message)
        return cls(
            result=test,
            raised=test.exc_type.rsplit(".", 1)[-1],
            expects_raised=_expects_raised(test.longrepr),
            left_value=_literal(test.assert_left),
            right_value=_literal(test.assert_right),
            unittest_sides=sides,
            unittest_values=tuple(_literal(s) for s in sides) if sides else (),
            where=_where_lines(test.longrepr),
            message_lines=tuple(test.message.strip().splitlines()),
        )

    @property
    def nodeid(self) -> str:
        return self.result.nodeid

    @property
    def outcome(self) -> Outcome:
        return self.result.outcome

    @property
    def exc_type(self) -> str:
        return self.result.exc_type

    @property
    def frames(self) -> list[Frame]:
        """Its traceback, innermost last (paths in the user's tree)."""
        return self.result.frames

    @property
    def assert_op(self) -> str | None:
        return self.result.assert_op

    @property
    def assert_left(self) -> str | None:
        return self.result.assert_left

    @property
    def assert_right(self) -> str | None:
        return self.result.assert_right

    @property
    def compared_values(self) -> tuple[object | None, ...]:
        """What the test compared the function's results with: both sides of `==` (which one
        is the expected one is the test's convention), the searched-for side of `in`, both
        sides of unittest's `a != b`."""
        op = self.assert_op
        sides: tuple[object | None, ...] = (self.left_value, self.right_value) if op == "==" else ()
        sides += (self.left_value,) if op == "in" else ()
        return sides + self.unittest_values

    @property
    def timed_out(self) -> bool:
        """The runner's outcome says so (the model's prompt reads this)."""
        return self.outcome == "timeout"

    @property
    def ended_in_timeout(self) -> bool:
        """`timed_out`, or it ended with an exception named for a timeout (`Timeout`,
        `TimeoutError`): the FIM comment's reading (model_edits/fim_prompt.py)."""
        return self.timed_out or "Timeout" in self.exc_type

    @property
    def first_frame(self) -> Frame | None:
        """The outermost frame: where the test itself stopped (the FIM comment's check, the
        ranking's failing line)."""
        return self.frames[0] if self.frames else None

    def asserting_frame(self, target_file: Path) -> Frame | None:
        """The innermost frame of the project's code (not `target_file`, not the standard
        library or an installed package) that runs an assertion, else the innermost frame of the
        test function itself (the model's prompt reads this). unittest's own
        `assertion_func(first, second, msg=msg)` is no assertion of the test's: shown as the
        failing line it told the model nothing (cachetools)."""
        outside = [
            f
            for f in self.frames
            if not same_file(f.path, target_file) and not _LIBRARY_PATH.search(f.path)
        ]
        test_name = self.nodeid.rpartition("::")[2].split("[", 1)[0]
        for frame in reversed(outside):
            if frame.code.startswith("assert"):
                return frame
        return next((f for f in reversed(outside) if f.function == test_name), None)

    def test_file_frames(self, root: Path) -> list[Frame]:
        """Its frames in its own file (the node id's, under `root`), outermost first: the
        test's lines, as the hover and the ranking read them."""
        path = (root / nodeid_file(self.nodeid)).resolve()
        return [f for f in self.frames if (root / f.path).resolve() == path]

    def frames_under(self, root: Path) -> list[Frame]:
        """Its frames inside `root` (test files too), outermost first, their paths relative to
        `root` with "/" (the ranking's, which compares them with the spectra's)."""
        inside: list[Frame] = []
        for frame in self.frames:
            try:
                path = Path(frame.path).resolve().relative_to(root.resolve())
            except ValueError:
                continue
            inside.append(Frame(path.as_posix(), frame.line, frame.function, frame.code))
        return inside


@dataclass(frozen=True)
class Expected:
    """What the failing tests say of exceptions, for the edit search's classes that need it:
    raised in place of the function's own (search/classes/raised_exception.py), a value
    converted for a TypeError (search/classes/converted_value.py)."""

    raises: tuple[str, ...] = ()  # exception names (last dotted part), first mentioned first
    failed_with: tuple[str, ...] = ()  # what the failing tests themselves raised (`TypeError`)
    failed_from: tuple[str, ...] = ()  # ... dotted with their modules, builtins left out
    # (`json.decoder.JSONDecodeError`): how the function's module may have to name them


NOTHING_EXPECTED = Expected()


@dataclass(frozen=True)
class Evidence:
    """One run's failing tests, parsed once (`Evidence.of`)."""

    failing: tuple[FailingTest, ...] = ()  # in the run's order
    tests: int = 0  # tests with a result
    error: str = ""  # a run-level problem (a collection error, no pytest)

    @classmethod
    def of(cls, run: RunResult | None) -> Evidence:
        """The evidence of `run` (none when `run` is None)."""
        if run is None:
            return NO_EVIDENCE
        failing = tuple(FailingTest.of(t) for t in run.tests if not t.ok)
        return cls(failing, len(run.tests), run.error)

    @cached_property
    def expected(self) -> Expected:
        """The exceptions the failing tests expect raised (at most MAX_EXCEPTIONS) and those
        they ended with, each once, first seen first."""
        raises = list(dict.fromkeys(n for t in self.failing for n in t.expects_raised))
        failed_with = dict.fromkeys(t.raised for t in self.failing if t.raised)
        failed_from = dict.fromkeys(
            f"{t.result.exc_module}.{t.raised}" for t in self.failing if t.result.exc_module
        )
        return Expected(tuple(raises[:MAX_EXCEPTIONS]), tuple(failed_with), tuple(failed_from))


NO_EVIDENCE = Evidence()


def call_in(code: str, name: str) -> str | None:
    """The first call of `name` in one source line, with its arguments: `mean([2, 4])`.
    None when the line does not call it (or the parentheses do not close on this line)."""
    for match in re.finditer(rf"(?<!\w){re.escape(name)}\s*\(", code):  # also `obj.name(`
        depth, quote = 0, ""
        for index in range(match.end() - 1, len(code)):
            char = code[index]
            if quote:
                if char == quote and code[index - 1] != "\\":
                    quote = ""
            elif char in "'\"":
                quote = char
            elif char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
                if depth == 0:
                    return code[match.start() : index + 1]
    return None


def same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return str(a) == str(b)


def _expects_raised(longrepr: str) -> tuple[str, ...]:
    names: list[str] = []
    for match in _EXPECTS.finditer(longrepr):
        name = match.group(1).rsplit(".", 1)[-1]
        if name[:1].isupper() and name not in names:
            names.append(name)
    return tuple(names)


def _where_lines(longrepr: str) -> tuple[Where, ...]:
    found: list[Where] = []
    for line in longrepr.splitlines():
        match = _WHERE.match(line.strip())
        if match:
            found.append(Where(match.group(1), match.group(2).strip()))
    return tuple(found)


def _unittest_sides(message: str) -> tuple[str, str] | None:
    """`'a' != 'b'` / `3 != 4` on a unittest failure's first line: both sides."""
    first = message.split("\n", 1)[0].removeprefix("AssertionError: ").strip()
    left, separator, right = first.partition(" != ")
    return (left, right) if separator else None


def _literal(spelled: str | None) -> object | None:
    """The value a repr spells (a string, number, container of them), or None (not a
    literal, or cut short)."""
    if not spelled:
        return None
    try:
        return ast.literal_eval(spelled)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
