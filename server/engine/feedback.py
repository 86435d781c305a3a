"""What the model is told about a run: failing tests with their real values, the tests' source,
and the probe/print log. Plain text pieces; the templates decide the wording around them.

Log and source line numbers are made relative to the function as shown to the model (its first
line is line 1), because the model never sees the rest of the file.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from selfdebug.server.engine.target import DefNode, TargetFunction, first_line
from selfdebug.server.runner.results import ProbeRecord, RunResult, TestResult

FIELD_CHARS = 300  # one value (left/right of an assertion, an exception message)
FAILURE_CHARS = 900  # one failing test, all told
TEST_SOURCE_LINES = 30


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 15].rstrip() + " ...[truncated]"


def _same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return str(a) == str(b)


def _assertion_line(test: TestResult, target_file: Path) -> str:
    for frame in reversed(test.frames):
        if frame.code.startswith("assert") and not _same_file(frame.path, target_file):
            return frame.code
    return ""


def describe_failure(test: TestResult, target: TargetFunction, target_file: Path) -> str:
    """One failing test as the model should read it: the assertion with got/expected, or the
    exception and the line of the function that raised it."""
    head = f"{test.outcome.upper()} {test.nodeid}"
    if test.outcome == "timeout":
        return f"{head}: did not finish in time (an endless loop or a very slow path?)"
    assertion = _assertion_line(test, target_file)
    if test.assert_left is not None and test.assert_right is not None:
        left = _clip(test.assert_left, FIELD_CHARS)
        right = _clip(test.assert_right, FIELD_CHARS)
        where = f"`{assertion}` " if assertion else ""
        if (test.assert_op or "==") == "==":
            return _clip(f"{head}: {where}got {left}, expected {right}", FAILURE_CHARS)
        return _clip(
            f"{head}: {where}failed: left side {left}, right side {right} "
            f"(operator {test.assert_op})",
            FAILURE_CHARS,
        )
    text = f"{head}: {test.exc_type or 'error'}"
    if test.message:
        text += f": {_clip(test.message, FIELD_CHARS)}"
    if assertion:
        text += f"\n  at `{assertion}`"
    inside = [
        f
        for f in test.frames
        if _same_file(f.path, target_file) and target.start_line < f.line <= target.end_line
    ]
    if inside:
        frame = inside[-1]
        line = frame.line - target.start_line
        text += f"\n  raised at line {line} of `{target.name}`: `{frame.code}`"
    elif not test.exc_type and test.longrepr:
        text += "\n" + textwrap.indent(_clip(test.longrepr, FAILURE_CHARS // 2), "  ")
    return _clip(text, FAILURE_CHARS)


def describe_failures(run: RunResult, target: TargetFunction, target_file: Path) -> str:
    if run.error and not run.tests:
        return f"The test run itself failed: {_clip(run.error, FAILURE_CHARS)}"
    failing = [t for t in run.tests if not t.ok]
    if not failing:
        return "All tests pass."
    return "\n".join(describe_failure(t, target, target_file) for t in failing)


def first_failing(run: RunResult) -> str | None:
    return next((t.nodeid for t in run.tests if not t.ok), None)


def _find_test_node(tree: ast.Module, names: list[str]) -> DefNode | None:
    body: list[ast.stmt] = tree.body
    node: DefNode | None = None
    for name in names:
        node = next(
            (
                s
                for s in body
                if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and s.name == name
            ),
            None,
        )
        if node is None:
            return None
        body = node.body
    return node


def source_of_test(project_root: Path, nodeid: str) -> str:
    """The source of the test function a node id names ("" when it cannot be found)."""
    path_part, _, rest = nodeid.partition("::")
    names = [part.split("[", 1)[0] for part in rest.split("::") if part]
    path = Path(path_part) if Path(path_part).is_absolute() else project_root / path_part
    try:
        source = path.read_text(encoding="utf-8")
        node = _find_test_node(ast.parse(source), names)
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
) -> str:
    """The probe/print log, one line per record, lines relative to the shown function."""
    rendered: list[str] = []
    for record in records:
        line = record.line - first_line_0based
        if record.kind == "print":
            rendered.append(f"line {line}: {record.text.rstrip()}")
        else:
            values = ", ".join(f"{k}={v}" for k, v in record.values.items())
            label = f" ({record.kind})" if record.kind in ("return", "raise") else ""
            rendered.append(f"line {line}{label}: {values}".rstrip(": "))
    if not rendered:
        return "(the log is empty: the function was not reached, or nothing was printed)"
    out: list[str] = []
    used = 0
    for index, text in enumerate(rendered):
        if used + len(text) + 1 > limit_chars:
            out.append(f"...[log truncated: {len(rendered) - index} more lines]")
            break
        out.append(text)
        used += len(text) + 1
    else:
        if capped:
            out.append("...[log truncated by the probe limit]")
    return "\n".join(out)
