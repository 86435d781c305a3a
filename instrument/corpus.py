"""The running interpreter's standard library as a test corpus for instrument + strip.

Shared by the test suite (a fixed sample), `scripts/stdlib_roundtrip.py` (everything) and
`selfdebug bench instrument` (timings). A file counts as *unparseable* when tree-sitter or the
interpreter itself rejects the original (lib2to3's Python 2 test data, deliberate bad-syntax
tests, files in other encodings that the interpreter refuses); those are reported apart.
"""

from __future__ import annotations

import ast
import hashlib
import sysconfig
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InstrumentError
from .helper import HELPER
from .locate import FunctionLocation, list_functions
from .probes import LEVELS, instrument_function
from .source import parse
from .strip import strip


def stdlib_root() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def stdlib_files(root: Path | None = None) -> list[Path]:
    """Every .py file of the standard library, sorted; third-party site-packages excluded."""
    root = root or stdlib_root()
    return sorted(
        path
        for path in root.rglob("*.py")
        if not {"site-packages", "dist-packages"} & set(path.relative_to(root).parts)
    )


def shuffled_files(salt: str = "selfdebug") -> list[Path]:
    """All stdlib files in a fixed pseudo-random order (by a hash of the path).

    Any prefix of it is a fair, deterministic sample.
    """
    root = stdlib_root()

    def key(path: Path) -> bytes:
        return hashlib.sha256((salt + path.relative_to(root).as_posix()).encode()).digest()

    return sorted(stdlib_files(root), key=key)


@dataclass
class Failure:
    path: str
    qualname: str
    level: str
    reason: str


@dataclass
class RoundTrip:
    files: int = 0
    unparseable: list[str] = field(default_factory=list)  # "path (who rejects it: why)"
    functions: int = 0
    checks: int = 0  # function x level
    failures: list[Failure] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"files {self.files} (unparseable {len(self.unparseable)}), "
            f"functions {self.functions}, instrument+compile+ast+strip checks {self.checks}, "
            f"failures {len(self.failures)}"
        )


def compile_error(source: bytes, path: str) -> str:
    """Why the interpreter rejects the original file ("" when it compiles)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(source, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as error:
            return f"{type(error).__name__}: {error}"[:160]
    return ""


def check_function(
    source: bytes, path: str, location: FunctionLocation, levels: Iterable[str] = LEVELS
) -> list[Failure]:
    """Instrument one function at each level: it must compile and strip back to `source`."""
    failures = []
    for level in levels:
        try:
            instrumented = instrument_function(source, location, level)
        except InstrumentError as error:
            failures.append(Failure(path, location.qualname, level, f"instrument: {error}"))
            continue
        if strip(instrumented) != source:
            failures.append(Failure(path, location.qualname, level, "strip is not exact"))
            continue
        problem = _compile_problem(source, instrumented, path, location) or _ast_problem(
            source, instrumented, location
        )
        if problem:
            failures.append(Failure(path, location.qualname, level, problem))
    return failures


def _piece(text: bytes, first: int, end: int, encoding: str) -> bytes:
    """Lines [first, end) of `text` as a module of their own (indented defs under `if 1:`)."""
    piece = b"".join(text.splitlines(keepends=True)[first:end])
    if piece.lstrip(b"\r\n")[:1] in (b" ", b"\t", b"\f"):
        piece = b"if 1:\n" + piece
    if encoding not in ("utf-8", "utf-8-sig"):
        piece = f"# -*- coding: {encoding} -*-\n".encode() + piece
    return piece


def _added_lines(source: bytes, instrumented: bytes) -> int:
    return len(instrumented.splitlines()) - len(source.splitlines())


def _compile_problem(
    source: bytes, instrumented: bytes, path: str, location: FunctionLocation
) -> str:
    """Compile the instrumented function; cut out alone first (fast), else the whole file."""
    end = location.end_line + _added_lines(source, instrumented)
    piece = _piece(instrumented, location.start_line, end, parse(source).encoding)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(piece, path, "exec", dont_inherit=True)
            return ""
        except (SyntaxError, ValueError):
            pass  # maybe only out of context (`nonlocal`, `await` at module level...)
        try:
            compile(instrumented, path, "exec", dont_inherit=True)
            return ""
        except (SyntaxError, ValueError) as error:
            return f"compile: {error}"


def _ast_problem(source: bytes, instrumented: bytes, location: FunctionLocation) -> str:
    """The instrumented function must be the original plus probes, and nothing else.

    Its syntax tree, with the probe statements, decorator and return wraps taken out, must equal
    the original's; docstrings must still be docstrings.
    """
    encoding = parse(source).encoding
    end = location.end_line + _added_lines(source, instrumented)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            before = ast.parse(_piece(source, location.start_line, location.end_line, encoding))
            after = ast.parse(_piece(instrumented, location.start_line, end, encoding))
        except (SyntaxError, ValueError) as error:
            return f"ast: {error}"
    if _docstrings(before) != _docstrings(after):
        return "a docstring is no longer the first statement"
    if ast.dump(_ReturnNone().visit(before)) != ast.dump(_WithoutProbes().visit(after)):
        return "the code changed beyond the inserted probes"
    return ""


def _docstrings(tree: ast.AST) -> list[str | None]:
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    return [
        ast.get_docstring(node, clean=False)
        for node in ast.walk(tree)
        if isinstance(node, functions)
    ]


class _ReturnNone(ast.NodeTransformer):
    """`return None` and a bare `return` look alike once wrapped: compare them as one."""

    def visit_Return(self, node: ast.Return) -> ast.Return:
        self.generic_visit(node)
        if isinstance(node.value, ast.Constant) and node.value.value is None:
            node.value = None
        return node


class _WithoutProbes(_ReturnNone):
    """Takes every inserted probe back out of a syntax tree."""

    @staticmethod
    def _is_helper(node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id == HELPER
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "__import__"
            and [getattr(arg, "value", None) for arg in node.args] == [HELPER]
        )

    def _is_probe_call(self, node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and self._is_helper(node.func.value)
        )

    def visit_Import(self, node: ast.Import) -> ast.Import | None:
        return None if [alias.name for alias in node.names] == [HELPER] else node

    def visit_Expr(self, node: ast.Expr) -> ast.AST | None:
        return None if self._is_probe_call(node.value) else self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        func = node.func
        is_ret = isinstance(func, ast.Attribute) and func.attr == "ret" and len(node.args) == 4
        if is_ret and self._is_probe_call(node):
            return self.visit(node.args[2])
        return self.generic_visit(node)

    def _decorated(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        node.decorator_list = [d for d in node.decorator_list if not self._is_probe_call(d)]
        return self.generic_visit(node)

    visit_FunctionDef = _decorated
    visit_AsyncFunctionDef = _decorated


def roundtrip(paths: Iterable[Path], levels: Iterable[str] = LEVELS, limit: int = 0) -> RoundTrip:
    """Check every function of `paths` (or the first `limit` functions) at every level."""
    result = RoundTrip()
    levels = list(levels)
    for path in paths:
        source = path.read_bytes()
        result.files += 1
        try:
            parse(source).raise_if_error()
        except InstrumentError as error:
            result.unparseable.append(f"{path} (tree-sitter: {error})")
            continue
        problem = compile_error(source, str(path))
        if problem:
            result.unparseable.append(f"{path} (the interpreter: {problem})")
            continue
        for location in list_functions(source):
            result.functions += 1
            result.checks += len(levels)
            result.failures += check_function(source, str(path), location, levels)
            if limit and result.functions >= limit:
                return result
    return result
