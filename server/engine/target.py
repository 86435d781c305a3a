"""The function being debugged: where it sits in the file, and how to put a new version there.

Found by the instrumenter's lookup (instrument/definitions.py: the same name means the same
definition everywhere) and read through Python's own `ast` (decorators included), because the
engine must also parse every candidate file the same way: one parser decides both the function's
lines and whether a replacement is valid Python.
"""

from __future__ import annotations

import ast
import difflib
import textwrap
from dataclasses import dataclass
from pathlib import Path

from selfdebug.instrument.definitions import Definition, definitions, find_definition
from selfdebug.instrument.source import parse_text
from selfdebug.server.runner.safe_read import UnreadableFile
from selfdebug.server.runner.source_files import read_source

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
DefNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def first_line(node: DefNode) -> int:
    """The 0-based first line of a definition: its first decorator's, else its `def`/`class`."""
    return min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1


class TargetNotFound(Exception):
    """The file does not parse, or holds no function with that qualified name."""


class TargetUnreadable(TargetNotFound):
    """The file cannot be read at all."""


@dataclass(frozen=True)
class TargetFunction:
    qualname: str
    name: str
    class_name: str  # the enclosing class for methods, "" otherwise
    start_line: int  # 0-based, first decorator line included
    end_line: int  # 0-based, exclusive
    def_line: int  # 0-based line of the `def` keyword
    indent: str  # the whitespace before the def (methods are indented)
    code: str  # the function's text, dedented to column 0, ending in a newline
    header: str = ""  # decorators + the def line(s), dedented; "" for a one-line def

    def replace_in(self, source: str, new_code: str) -> str:
        """The file text with this function's lines replaced by `new_code` (column 0 code).

        The lines `new_code` keeps from `code` (trailing whitespace aside) are the file's own,
        byte for byte: `code` is dedented, which empties a whitespace-only line (a docstring's
        too), and a model's rewrite drops trailing spaces, so writing them back would change
        lines the fix never touched."""
        lines = source.splitlines(keepends=True)
        newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
        body = textwrap.indent(new_code.rstrip("\n") + "\n", self.indent, lambda line: True)
        body_lines = [
            (line.rstrip("\n").rstrip("\r") + newline) if line.strip() else newline
            for line in body.splitlines(keepends=True)
        ]
        own = lines[self.start_line : self.end_line]
        before = [line.rstrip() for line in self.code.splitlines()]
        if len(own) == len(before):  # `source` is the text this function was found in
            after = [line.rstrip() for line in new_code.rstrip("\n").splitlines()]
            matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
            kept: list[str] = []
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                kept += own[i1:i2] if tag == "equal" else body_lines[j1:j2]
            body_lines = kept
            if body_lines and not body_lines[-1].endswith(("\n", "\r")):
                body_lines[-1] += newline  # the file's last line, followed by the tail below
        tail = lines[self.end_line :]
        if self.end_line == len(lines) and lines and not lines[-1].endswith(("\n", "\r")):
            body_lines[-1] = body_lines[-1].rstrip("\r\n")  # keep a file without a final newline
        return "".join(lines[: self.start_line] + body_lines + tail)


def _definitions_of(source: str) -> list[Definition]:
    normalized = source.replace("\r\n", "\n").replace("\r", "\n")  # ast's line numbering
    return definitions(parse_text(normalized).root)


def _ast_node(tree: ast.Module, found: Definition | None) -> DefNode | None:
    """The ast node of a definition: the one whose keyword sits on its line, with its name."""
    if found is None:
        return None
    line, name = found.node.start_point.row + 1, found.path[-1]
    return next(
        (
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and node.lineno == line
            and node.name == name
        ),
        None,
    )


def find_definition_node(source: str, tree: ast.Module, path: list[str]) -> DefNode | None:
    """The ast node of the first def/class named `path` (["Class", "method"]).

    The lookup is the instrumenter's (instrument/definitions.py), so the engine, the instrumenter
    and test discovery agree on which definition a name means.
    """
    return _ast_node(tree, find_definition(_definitions_of(source), path))


def find_node(source: str, tree: ast.Module, qualname: str) -> tuple[FunctionNode, str]:
    """The def node for `qualname` ("f", "Class.method", "outer.inner") and its class name."""
    parts = qualname.split(".")
    found = _definitions_of(source)
    definition = find_definition(found, parts)
    node = _ast_node(tree, definition)
    if definition is None or node is None:
        prefixes = (parts[: i + 1] for i in range(len(parts)))
        missing = next((p[-1] for p in prefixes if find_definition(found, p) is None), "")
        raise TargetNotFound(f"no function {qualname!r} (missing {missing!r})")
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        raise TargetNotFound(f"{qualname!r} is a class, not a function")
    return node, parts[-2] if definition.in_class else ""


def locate(source: str, qualname: str) -> TargetFunction:
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise TargetNotFound(f"the file does not parse (line {error.lineno}: {error.msg})")
    node, class_name = find_node(source, tree, qualname)
    first = first_line(node)
    end = node.end_lineno or node.lineno
    lines = source.splitlines(keepends=True)
    def_text = lines[first]
    indent = def_text[: len(def_text) - len(def_text.lstrip())]
    code = _unindented(lines[first:end], indent)
    if not code.endswith("\n"):
        code += "\n"
    body_line = node.body[0].lineno  # 1-based; a docstring or statement after the header
    header = ""
    if body_line > node.lineno:
        header_lines = code.splitlines(keepends=True)[: body_line - 1 - first]
        header = "".join(header_lines)
    return TargetFunction(
        qualname=qualname,
        name=node.name,
        class_name=class_name,
        start_line=first,
        end_line=end,
        def_line=node.lineno - 1,
        indent=indent,
        code=code,
        header=header,
    )


def _unindented(lines: list[str], indent: str) -> str:
    """The function's lines at column 0: `indent` (its `def` line's) taken off every line that
    starts with it. A line of a multi-line string that starts further left stays as it is;
    textwrap.dedent would then take nothing off any line (seen: a method whose docstring's
    example wraps to column 0), and the function would not parse."""
    return "".join(
        line[len(line.rstrip("\r\n")) :]  # a blank line: its line break only, as dedent does
        if not line.strip()
        else line[len(indent) :]
        if line.startswith(indent)
        else line
        for line in lines
    )


def relative_label(file: str | Path, project_root: str | Path) -> str:
    """The file as the user names it: relative to the project, else its name."""
    path = Path(file).resolve()
    try:
        return path.relative_to(Path(project_root).resolve()).as_posix()
    except ValueError:
        return path.name


def read_target(
    file: str | Path, qualname: str, source_override: str | None = None
) -> tuple[str, TargetFunction]:
    """The source text to debug (the editor's buffer, else the file as Python decodes it, with
    its own line endings) and the function in it. Raises TargetUnreadable or TargetNotFound
    (what `locate` says)."""
    if source_override is not None:
        source = source_override
    else:
        path = Path(file).resolve()
        try:
            source, _encoding = read_source(path)
        except UnreadableFile as error:  # says "cannot read PATH: why" itself
            raise TargetUnreadable(error.strerror or str(error)) from None
        except OSError as error:
            raise TargetUnreadable(f"cannot read {path}: {error.strerror or error}") from None
        except (SyntaxError, UnicodeDecodeError) as error:  # a bad declaration, bad bytes
            raise TargetUnreadable(f"cannot read {path}: {error}") from None
    return source, locate(source, qualname)
