# ruff: noqa: E501 (the examples keep their code's own lines)
"""`raise A(...)` -> `raise X(...)` for an `X` a failing test expects (`pytest.raises(X)`,
`raises(...)`, `assertRaises(...)` in its failure text, read by engine/evidence.py): only those
names are used, so the edits stay few, and none is made when no failing test expects a raise."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, LineSpan, example
from selfdebug.server.engine.search.scope import Scope

EXAMPLES = (
    example(
        "Kozea/WeasyPrint@f10b3b56c88e:weasyprint/images.py::get_image_from_uri",
        """\
def get_image_from_uri():
    raise ValueError('SVG images are not supported yet')
""",
        """\
def get_image_from_uri():
    raise ImageLoadingError('SVG images are not supported yet')
""",
        2,
        raises=("ImageLoadingError",),
    ),
    example(
        "Suor/funcy@481f1905fa86:funcy/decorators.py::make_call.<locals>.Call.__getattr__",
        'def __getattr__(self, name):\n    try:\n        return self.__dict__[name]\n    except KeyError:\n        raise NameError("Function %s does not have argument %s" \\\n                        % (func.__name__, name))\n',
        'def __getattr__(self, name):\n    try:\n        return self.__dict__[name]\n    except KeyError:\n        raise AttributeError("Function %s does not have argument %s" \\\n                             % (func.__name__, name))\n',
        5,
        6,
        raises=("AttributeError",),
    ),
    example(
        "beetbox/beets@63cd799e8d4e:beets/dbcore/query.py::Period.parse",
        """\
def parse(cls, string):
    raise InvalidQueryArgumentTypeError(string,
                                        'a valid datetime string')
""",
        """\
def parse(cls, string):
    raise InvalidQueryArgumentValueError(string,
                                        'a valid datetime string')
""",
        2,
        raises=("InvalidQueryArgumentValueError",),
    ),
    example(
        "joke2k/faker@a23cb8793c6a:faker/providers/bank/__init__.py::Provider.bank",
        """\
def bank(self):
    raise AttributeError(
        f"The {self.__class__.__name__} provider does not have a 'banks' "
        "attribute. Consider contributing to the project and "
        " adding a 'banks' tuple to enable bank name generation."
    )
""",
        """\
def bank(self):
    raise NotImplementedError(
        f"The {self.__class__.__name__} provider does not have a 'banks' "
        "attribute. Consider contributing to the project and "
        " adding a 'banks' tuple to enable bank name generation."
    )
""",
        2,
        raises=("NotImplementedError",),
    ),
)


class RaisedException(EditClass):
    name = "raised-exception"
    changes = "`raise A(...)` -> `raise X(...)`"
    where = "a raise"
    size = 2
    order = 260
    evidence = "a failing test's `pytest.raises(X)`"
    found = (11, 11)
    examples = EXAMPLES

    def in_function(self, scope: Scope, lines: set[int]) -> Iterator[LineSpan]:
        for node in ast.walk(scope.function):
            if not isinstance(node, ast.Raise) or node.exc is None or node.lineno not in lines:
                continue
            raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if not isinstance(raised, ast.Name):
                continue
            start, end = scope.text.span(raised)
            for name in scope.raises:
                if name != raised.id:
                    yield node.lineno, start, end, name


EDIT_CLASS = RaisedException()
