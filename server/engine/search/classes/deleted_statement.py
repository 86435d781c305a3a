"""A simple statement deleted: its line gone, or `pass` where it was alone in a block (or
shares its line). Docstrings stay."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, LineSpan, example
from selfdebug.server.engine.search.scope import Scope
from selfdebug.server.engine.search.statements import SIMPLE_STATEMENTS, blocks, whole_lines

EXAMPLES = (
    example(
        "Kozea/WeasyPrint@76c3a47607bd:weasyprint/formatting_structure/boxes.py::Box.copy",
        """\
def copy(self):
    new_box.style = self.style
    return new_box
""",
        """\
def copy(self):
    return new_box
""",
        2,
    ),
    example(
        "PyCQA/flake8@137b45ac2f65:src/flake8/api/legacy.py::get_style_guide",
        """\
def get_style_guide():
    application.make_notifier()
    return StyleGuide(application)
""",
        """\
def get_style_guide():
    return StyleGuide(application)
""",
        2,
    ),
    example(
        "Python-Markdown/markdown@7942471746b5:markdown/extensions/footnotes.py::FootnoteTreeprocessor.run",
        """\
def run(self):
    node, isText = result
    fnPlaceholder.parent.replaceChild(fnPlaceholder, footnotesDiv)
""",
        """\
def run(self):
    node, isText = result
""",
        3,
    ),
    example(
        "Supervisor/supervisor@e19cbc185dfa:src/supervisor/process.py::Subprocess.stop",
        """\
def stop(self):
    self.drain()
    return self.kill(self.config.stopsignal)
""",
        """\
def stop(self):
    return self.kill(self.config.stopsignal)
""",
        2,
    ),
)


class DeletedStatement(EditClass):
    name = "deleted-statement"
    changes = "a statement deleted"
    where = "a simple statement"
    size = 3
    order = 280
    found = (90, 34)
    examples = EXAMPLES

    def in_function(self, scope: Scope, lines: set[int]) -> Iterator[LineSpan]:
        text = scope.text
        for _owner, block in blocks(scope.function):
            for stmt in block:
                if not isinstance(stmt, SIMPLE_STATEMENTS) or stmt.lineno not in lines:
                    continue
                if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                    continue  # a docstring
                start, end = text.span(stmt)
                whole = whole_lines(text, stmt)
                if len(block) > 1 and stmt.lineno == stmt.end_lineno and whole is not None:
                    yield stmt.lineno, whole[0], whole[1], ""
                    continue
                yield stmt.lineno, start, end, "pass"


EDIT_CLASS = DeletedStatement()
