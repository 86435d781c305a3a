"""What the model is told about a run: failing tests with their real values, the tests' source,
and the probe/print log. Plain text pieces; the templates decide the wording around them.

Log and source line numbers are made relative to the function as shown to the model (its first
line is line 1), because the model never sees the rest of the file.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Collection
from pathlib import Path
from typing import Literal, TypeVar

from selfdebug.server.engine.clipping import clip, clip_middle
from selfdebug.server.engine.evidence import Evidence, FailingTest, same_file
from selfdebug.server.engine.parametrized_case import parameters_of
from selfdebug.server.engine.target import TargetFunction, find_definition_node, first_line
from selfdebug.server.runner.results import ProbeRecord, RunResult, TestResult, failure_detail
from selfdebug.server.runner.source_files import read_source_text

FIELD_CHARS = 300  # one value (left/right of an assertion, an exception message)
FAILURE_CHARS = 900  # one failing test, all told
TEST_SOURCE_LINES = 30
TESTS_SHOWN = 6  # test sources in a prompt; the results of every chosen test are still shown
FAILURES_SHOWN = 3  # failing tests shown in full; the rest are counted
PASSING_SHOWN = 2  # passing test sources beside the failing ones, once a run has told them apart


def _read_tree(path: str | Path) -> tuple[str, ast.Module] | None:
    try:
        source = read_source_text(path)
        return source, ast.parse(source)
    except (OSError, SyntaxError, ValueError):
        return None


_Node = TypeVar("_Node", bound=ast.stmt)


def _enclosing(tree: ast.AST, line: int, kind: type[_Node]) -> _Node | None:
    """The innermost `kind` statement whose lines hold `line`."""
    found: _Node | None = None
    for node in ast.walk(tree):
        if not isinstance(node, kind):
            continue
        holds = node.lineno <= line <= (node.end_lineno or node.lineno)
        if holds and (found is None or node.lineno >= found.lineno):
            found = node
    return found


def _is_call_of(call: ast.Call, name: str) -> bool:
    """`name(...)` or `obj.name(...)`."""
    func = call.func
    return (isinstance(func, ast.Name) and func.id == name) or (
        isinstance(func, ast.Attribute) and func.attr == name
    )


def _calls(expr: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Call) and _is_call_of(n, name) for n in ast.walk(expr))


def _results_of(function: ast.AST | None, name: str) -> set[str]:
    """Variables of the test assigned from a call of `name` (`result = median(xs)`)."""
    if function is None:
        return set()
    found: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and _calls(node.value, name):
            targets: list[ast.expr] = list(node.targets)
        elif isinstance(node, ast.AnnAssign) and node.value and _calls(node.value, name):
            targets = [node.target]
        else:
            continue
        found |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return found


def _actual_side(assertion: ast.Assert, function: ast.AST | None, name: str) -> str:
    """`left` or `right`: the side of `assert a == b` that holds what the function returned
    (the side that calls it, or a variable assigned from its call); "" when it cannot tell."""
    compare = assertion.test
    if not isinstance(compare, ast.Compare) or len(compare.comparators) != 1:
        return ""
    left, right = compare.left, compare.comparators[0]
    sides = {"left": _calls(left, name), "right": _calls(right, name)}
    if sides["left"] != sides["right"]:
        return "left" if sides["left"] else "right"
    results = _results_of(function, name)
    uses = {
        side: bool(results & {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)})
        for side, expr in (("left", left), ("right", right))
    }
    if uses["left"] != uses["right"]:
        return "left" if uses["left"] else "right"
    return ""


def _call_source(source: str, statement: ast.stmt, name: str) -> str:
    """The test's own text of its call of `name` in `statement` (`median([])`): the inputs when
    the function raised before pytest could show values."""
    for node in ast.walk(statement):
        if isinstance(node, ast.Call) and _is_call_of(node, name):
            text = ast.get_source_segment(source, node) or ast.unparse(node)
            return clip(" ".join(text.split()), FIELD_CHARS)
    return ""


def call_values(test: FailingTest, name: str) -> str:
    """pytest's account of the call, from a `where 3.5 = median([1, 2, 3, 4])` line: the
    function's arguments as values, and what it returned ("" when pytest wrote none)."""
    where = next((w for w in test.where if w.calls(name)), None)
    if where is None:
        return ""
    return f"{clip(where.call, FIELD_CHARS)} returned {clip(where.value, FIELD_CHARS)}"


def describe_failure(test: FailingTest, target: TargetFunction, target_file: Path) -> str:
    """One failing test as the model should read it: what the function returned against what
    the test expected (by which side of the assert calls it), the call's arguments, the
    parametrized case, or the exception and the line of the function that raised it."""
    head = f"{test.outcome.upper()} {test.nodeid}"
    if test.timed_out:
        return f"{head}: {failure_detail(test.result)} (an endless loop or a very slow path?)"
    frame = test.asserting_frame(target_file)
    assertion_text = frame.code if frame is not None and frame.code.startswith("assert") else ""
    parsed = _read_tree(frame.path) if frame is not None else None
    assertion: ast.Assert | None = None
    function = None
    if parsed is not None and frame is not None:
        assertion = _enclosing(parsed[1], frame.line, ast.Assert)
        function = _enclosing(parsed[1], frame.line, ast.FunctionDef)
        if assertion is not None and "\n" in (ast.get_source_segment(parsed[0], assertion) or ""):
            assertion_text = " ".join(ast.unparse(assertion).split())
    extra: list[str] = []
    call = call_values(test, target.name)
    if not call and parsed is not None and frame is not None:
        statement = _enclosing(parsed[1], frame.line, ast.stmt)
        call = _call_source(parsed[0], statement, target.name) if statement else ""
    if call:
        extra.append(f"call: {call}")
    if frame is not None:
        parameters = parameters_of(test.nodeid, frame.path)
        if parameters:
            extra.append(f"parameters: {parameters}")
    if test.assert_left is not None and test.assert_right is not None:
        side = _actual_side(assertion, function, target.name) if assertion is not None else ""
        known: Literal["left", "right"] | None = (
            ("left" if side == "left" else "right") if side else None
        )
        detail = failure_detail(test.result, known, lambda value: clip(value, FIELD_CHARS))
        if known and (test.assert_op or "==") == "==":  # "`assert f(3) == 6` got 3, expected 6"
            text = f"{head}: `{assertion_text}` {detail}" if assertion_text else f"{head}: {detail}"
            return clip("\n".join([text, *(f"  {line}" for line in extra)]), FAILURE_CHARS)
        text = f"{head}: {detail}"
    else:
        detail = failure_detail(test.result, clip=lambda value: clip(value, FIELD_CHARS))
        text = f"{head}: {detail}"
    if assertion_text:
        text += f"\n  at `{assertion_text}`"
    elif frame is not None and frame.code:
        text += f"\n  at `{frame.code}`"
    inside = [
        f
        for f in test.frames
        if same_file(f.path, target_file) and target.start_line < f.line <= target.end_line
    ]
    if inside:
        raising = inside[-1]
        line = raising.line - target.start_line
        text += f"\n  raised at line {line} of `{target.name}`: `{raising.code}`"
    elif not test.exc_type and test.result.longrepr:  # pytest's own text, shown as it is
        text += "\n" + textwrap.indent(clip(test.result.longrepr, FAILURE_CHARS // 2), "  ")
    text += "".join(f"\n  {line}" for line in extra)
    return clip(text, FAILURE_CHARS)


REGRESSION_NOTE = (
    "the last fix made the shown tests pass but broke other behaviour of the function that "
    "worked before (another test now fails); make a smaller, more careful change"
)


def regression_note(broken: list[TestResult], target: TargetFunction, file: Path) -> str:
    """The guard's feedback: what broke, by name and with its values (at most 3 tests)."""
    described = [describe_failure(FailingTest.of(t), target, file) for t in broken[:3]]
    more = f"\n(and {len(broken) - 3} more)" if len(broken) > 3 else ""
    return f"{REGRESSION_NOTE}. What broke:\n" + "\n".join(described) + more


def describe_failures(
    evidence: Evidence, target: TargetFunction, target_file: Path, shown: int = FAILURES_SHOWN
) -> str:
    """The first `shown` failing tests in full, the rest counted (a long list would push the
    code out of a small model's context and says little more)."""
    if evidence.error and not evidence.tests:
        return f"The test run itself failed: {clip(evidence.error, FAILURE_CHARS)}"
    failing = evidence.failing
    if not failing:
        return "All tests pass."
    parts = [describe_failure(t, target, target_file) for t in failing[:shown]]
    rest = failing[shown:]
    if rest:
        names = clip(", ".join(t.nodeid.rpartition("::")[2] for t in rest), FIELD_CHARS)
        parts.append(
            f"... and {len(rest)} more failing test{'s' if len(rest) > 1 else ''}: {names}"
        )
    return "\n".join(parts)


def first_failing(run: RunResult) -> str | None:
    return next((t.nodeid for t in run.tests if not t.ok), None)


def sources_to_show(
    project_root: Path,
    nodeids: list[str],
    limit: int = TESTS_SHOWN,
    failing: Collection[str] | None = None,
) -> list[tuple[str, str]]:
    """(node id, source) of the first `limit` tests whose source can be found, in the given
    order (a discovered session's failing tests come first). A real method can have forty tests
    (2,800 prompt tokens on a cachetools descriptor), and those inherited from a mixin class
    have no source of their own: an empty block only costs the small model's attention. The
    cases of one parametrized test share one block ("... (and 2 more cases)"): click's prompt
    showed the same source three times.

    Once a run has said which tests fail (`failing`), they come first and at most
    PASSING_SHOWN passing tests follow: on click's write_usage four long passing tests took
    half of a 1,959-token prompt (two minutes of reading on two cores) and said nothing of
    the bug."""
    if failing is not None:
        nodeids = [n for n in nodeids if n in failing] + [n for n in nodeids if n not in failing]
    cases: dict[str, list[str]] = {}  # source -> the node ids it is the source of
    passing_blocks = 0
    for nodeid in nodeids:
        source = source_of_test(project_root, nodeid)
        if not source.strip():
            continue
        passing = failing is not None and nodeid not in failing
        if source in cases:
            cases[source].append(nodeid)
        elif len(cases) < limit and not (passing and passing_blocks >= PASSING_SHOWN):
            cases[source] = [nodeid]
            passing_blocks += passing
    return [(_cases_label(ids), source) for source, ids in cases.items()]


def _cases_label(nodeids: list[str]) -> str:
    more = len(nodeids) - 1
    return nodeids[0] + (f" (and {more} more case{'s' if more > 1 else ''})" if more else "")


def source_of_test(project_root: Path, nodeid: str) -> str:
    """The source of the test function a node id names ("" when it cannot be found)."""
    path_part, _, rest = nodeid.partition("::")
    names = [part.split("[", 1)[0] for part in rest.split("::") if part]
    path = Path(path_part) if Path(path_part).is_absolute() else project_root / path_part
    try:
        source = read_source_text(path)
        node = find_definition_node(source, ast.parse(source), names) if names else None
    except (OSError, SyntaxError, ValueError):
        return ""
    if node is None:
        return ""
    lines = source.splitlines()[first_line(node) : node.end_lineno]
    if len(lines) > TEST_SOURCE_LINES:
        lines = [*lines[:TEST_SOURCE_LINES], "    # ...[test truncated]"]
    return textwrap.dedent("\n".join(lines))


def format_log(
    records: list[ProbeRecord],
    first_line_0based: int,
    limit_chars: int,
    capped: bool = False,
    code: str = "",
) -> str:
    """The probe/print log, one line per record, lines relative to the shown function and each
    quoted with its source line from `code` (a small model cannot count lines), cut in the
    middle when longer than `limit_chars`."""
    source_lines = code.splitlines()
    rendered: list[str] = []
    for record in records:
        line = record.line - first_line_0based
        quoted = ""
        if 0 < line <= len(source_lines) and source_lines[line - 1].strip():
            quoted = f" `{clip(source_lines[line - 1], 80)}`"
        if record.kind == "print":
            rendered.append(f"line {line}{quoted}: {record.text.rstrip()}")
        else:
            values = ", ".join(f"{k}={v}" for k, v in record.values.items())
            label = f" ({record.kind})" if record.kind in ("return", "raise") else ""
            rendered.append(f"line {line}{quoted}{label}: {values}".rstrip(": "))
    if not rendered:
        return "(the log is empty: the function was not reached, or nothing was printed)"
    text = clip_middle("\n".join(rendered), limit_chars)
    if capped:
        text += "\n...[log truncated by the probe limit]"
    return text
