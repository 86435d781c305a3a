# ruff: noqa: E501, W291 (the examples keep their code's own lines)
"""`and` <-> `or` between two operands of a boolean operation."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from itertools import pairwise

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span

EXAMPLES = (
    example(
        "Python-Markdown/markdown@542324b626e9:markdown/inlinepatterns.py::LinkPattern.sanitize_url",
        """\
def sanitize_url(self):
    if netloc == '' or scheme not in locless_schemes:
        return ''
""",
        """\
def sanitize_url(self):
    if netloc == '' and scheme not in locless_schemes:
        return ''
""",
        2,
    ),
    example(
        "celery/celery@19acb368f1c7:celery/worker.py::TaskWrapper.on_failure",
        'def on_failure(self):\n    send_error_email = SEND_CELERY_TASK_ERROR_EMAILS or not \\\n            getattr(task_obj, "disable_error_emails", False)\n',
        'def on_failure(self):\n    send_error_email = SEND_CELERY_TASK_ERROR_EMAILS and not \\\n            getattr(task_obj, "disable_error_emails", False)\n',
        2,
    ),
    example(
        "html5lib/html5lib-python@ad2869b58cf6:src/html5lib/sanitizer.py::HTMLSanitizerMixin.sanitize_token",
        """\
def sanitize_token(self):
    for attr in self.attr_val_is_uri:
        if (re.match("^[a-z0-9][-+.a-z0-9]*:",val_unescaped) or
            (val_unescaped.split(':')[0] not in 
             self.allowed_protocols)):
            del attrs[attr]
""",
        """\
def sanitize_token(self):
    for attr in self.attr_val_is_uri:
        if (re.match("^[a-z0-9][-+.a-z0-9]*:",val_unescaped) and
            (val_unescaped.split(':')[0] not in 
             self.allowed_protocols)):
            del attrs[attr]
""",
        3,
    ),
    example(
        "ipython/ipython@5d06103df7b0:IPython/nbconvert/exporters/pdf.py::PDFExporter.run_command",
        """\
def run_command(self):
    if sys.platform == 'win32' and sys.version_info < (3,0):
        command = [c.encode('cp1252') for c in command]
""",
        """\
def run_command(self):
    if sys.platform == 'win32' or sys.version_info < (3,0):
        command = [c.encode('cp1252') for c in command]
""",
        2,
    ),
)


class BooleanOperator(EditClass):
    name = "boolean-operator"
    changes = "`and` <-> `or`"
    where = "a boolean operation at a ranked line"
    size = 1
    order = 30
    found = (8, 7)
    examples = EXAMPLES
    nodes = (ast.BoolOp,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.BoolOp)
        text = scope.text
        spelling = "and" if isinstance(node.op, ast.And) else "or"
        other = "or" if spelling == "and" else "and"
        for before, after in pairwise(node.values):
            found = text.find_op(text.span(before)[1], text.span(after)[0], spelling)
            if found:
                yield found[0], found[1], other


EDIT_CLASS = BooleanOperator()
