"""A parametrized test's case read back from its `@pytest.mark.parametrize` decorators:
`xs=[1, 2, 3, 4], expected=2.5` for `test_median[xs1-2.5]`.

Why: pytest's report names the case only by its id; the model is shown the values the failing
case passed (feedback.py's `describe_failure`), in the test's own source text. The ids are
rebuilt as pytest builds them (given `ids=`, `pytest.param(id=)`, or from the values), and a
case that cannot be matched shows nothing rather than the wrong values.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from selfdebug.server.engine.clipping import clip
from selfdebug.server.engine.target import find_definition_node
from selfdebug.server.runner.source_files import read_source_text

VALUE_CHARS = 150  # one argument's text (a case has several: half a value of feedback.py)


@dataclass
class _Case:
    ident: str
    values: list[tuple[str, str]]  # (argument name, source text of its value)


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def _default_id(value: ast.expr, argname: str, index: int) -> str:
    """pytest's id for one value: numbers, strings, booleans and None as themselves, anything
    else as the argument's name and the case index."""
    if isinstance(value, ast.Constant) and not isinstance(value.value, bytes):
        if isinstance(value.value, str):
            return value.value.encode("unicode_escape").decode("ascii")
        return str(value.value)
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
        inner = value.operand
        if isinstance(inner, ast.Constant) and isinstance(inner.value, int | float):
            return str(-inner.value)
    return f"{argname}{index}"


def _cases(decorator: ast.Call, source: str, module: ast.Module) -> list[_Case] | None:
    """The cases of one `@pytest.mark.parametrize(names, values, ids=...)`."""
    if len(decorator.args) < 2 or not isinstance(
        decorator.args[0], ast.Constant | ast.List | ast.Tuple
    ):
        return None
    first = decorator.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        names = [n.strip() for n in first.value.split(",") if n.strip()]
    elif isinstance(first, ast.List | ast.Tuple):
        names = [str(e.value) for e in first.elts if isinstance(e, ast.Constant)]
    else:
        return None
    values: ast.expr = decorator.args[1]
    if isinstance(values, ast.Name):  # a module-level constant: CASES = [...]
        assigned = [
            s.value
            for s in module.body
            if isinstance(s, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == values.id for t in s.targets)
        ]
        values = assigned[-1] if assigned else values
    if not isinstance(values, ast.List | ast.Tuple):
        return None
    given_ids: list[str | None] = []
    for keyword in decorator.keywords:
        if keyword.arg == "ids" and isinstance(keyword.value, ast.List | ast.Tuple):
            given_ids = [
                str(e.value) if isinstance(e, ast.Constant) else None for e in keyword.value.elts
            ]
    cases: list[_Case] = []
    for index, case in enumerate(values.elts):
        ident: str | None = given_ids[index] if index < len(given_ids) else None
        if isinstance(case, ast.Call) and _dotted(case.func).endswith("param"):
            for keyword in case.keywords:
                if keyword.arg == "id" and isinstance(keyword.value, ast.Constant):
                    ident = str(keyword.value.value)
            items = list(case.args)
        elif len(names) == 1:
            items = [case]
        elif isinstance(case, ast.Tuple | ast.List):
            items = list(case.elts)
        else:
            return None
        if len(items) != len(names):
            return None
        texts = [clip(ast.get_source_segment(source, item) or ast.unparse(item), VALUE_CHARS)
                 for item in items]  # fmt: skip
        if ident is None:
            ident = "-".join(_default_id(v, n, index) for v, n in zip(items, names, strict=True))
        cases.append(_Case(ident, list(zip(names, texts, strict=True))))
    return cases


def parameters_of(nodeid: str, test_file: str | Path) -> str:
    """`xs=[1, 2, 3, 4], expected=2.5` for a parametrized node id, read from the test's
    `@pytest.mark.parametrize` decorators ("" when the id names no case we can find)."""
    head, bracket, rest = nodeid.partition("[")
    if not bracket or not rest.endswith("]"):
        return ""
    wanted = rest[:-1]
    try:
        source = read_source_text(test_file)
        tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError):
        return ""
    names = [part for part in head.split("::")[1:] if part]
    node = find_definition_node(source, tree, names) if names else None
    if node is None:
        return ""
    combined: list[_Case] = [_Case("", [])]
    for decorator in reversed(node.decorator_list):  # the closest decorator's id comes first
        if not (
            isinstance(decorator, ast.Call) and _dotted(decorator.func).endswith("parametrize")
        ):
            continue
        cases = _cases(decorator, source, tree)
        if cases is None:
            return ""
        combined = [
            _Case("-".join(p for p in (a.ident, b.ident) if p), a.values + b.values)
            for a in combined
            for b in cases
        ]
    matching = [c for c in combined if c.ident == wanted]
    if len(matching) != 1:
        return ""
    return ", ".join(f"{name}={text}" for name, text in matching[0].values)
