"""Two adjacent one-line simple statements in the other order (`x = y` before `y = z`)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from selfdebug.server.engine.search.edit_class import EditClass, LineSpan, example
from selfdebug.server.engine.search.scope import Scope
from selfdebug.server.engine.search.statements import SIMPLE_STATEMENTS, blocks, whole_lines

EXAMPLES = (
    example(
        "PyCQA/pyflakes@20c7c950a79f:pyflakes/checker.py::Checker.FUNCTIONDEF",
        """\
def FUNCTIONDEF(self, node):
    self.addBinding(node, FunctionDefinition(node.name, node))
    self.LAMBDA(node)
""",
        """\
def FUNCTIONDEF(self, node):
    self.LAMBDA(node)
    self.addBinding(node, FunctionDefinition(node.name, node))
""",
        1,
        2,
        3,
    ),
    example(
        "beetbox/beets@9137b5c2f3eb:beetsplug/lyrics.py::_scrape_strip_cruft",
        """\
def _scrape_strip_cruft(html):
    html = TAG_RE.sub('', html)
    html = COMMENT_RE.sub('', html)
""",
        """\
def _scrape_strip_cruft(html):
    html = COMMENT_RE.sub('', html)
    html = TAG_RE.sub('', html)
""",
        1,
        2,
        3,
    ),
    example(
        "html5lib/html5lib-python@1d9f391f6f92:html5lib/inputstream.py::HTMLBinaryInputStream.changeEncoding",
        """\
def changeEncoding(self, newEncoding):
    if newEncoding.name in ("utf-16be", "utf-16le"):
        assert newEncoding is not None
    else:
        self.reset()
        self.charEncoding = (newEncoding, "certain")
""",
        """\
def changeEncoding(self, newEncoding):
    if newEncoding.name in ("utf-16be", "utf-16le"):
        assert newEncoding is not None
    else:
        self.charEncoding = (newEncoding, "certain")
        self.reset()
""",
        4,
        5,
        6,
    ),
    example(
        "ipython/ipython@73c730a42593:IPython/nbconvert/nbconvertapp.py::NbConvertApp.initialize",
        """\
def initialize(self, argv):
    super(NbConvertApp, self).initialize(argv)
    self.init_syspath()
""",
        """\
def initialize(self, argv):
    self.init_syspath()
    super(NbConvertApp, self).initialize(argv)
""",
        1,
        2,
        3,
    ),
)


class SwappedStatements(EditClass):
    name = "swapped-statements"
    changes = "two adjacent simple statements swapped"
    where = "adjacent statements"
    size = 3
    order = 290
    found = (18, 11)
    examples = EXAMPLES

    def in_function(self, scope: Scope, lines: set[int]) -> Iterator[LineSpan]:
        text = scope.text
        for _owner, block in blocks(scope.function):
            for first, second in pairwise(block):
                if not (
                    isinstance(first, SIMPLE_STATEMENTS) and isinstance(second, SIMPLE_STATEMENTS)
                ):
                    continue
                if first.lineno not in lines and second.lineno not in lines:
                    continue
                a, b = whole_lines(text, first), whole_lines(text, second)
                if a is None or b is None or a[1] != b[0] or first.end_lineno != first.lineno:
                    continue
                if second.end_lineno != second.lineno:
                    continue
                line = first.lineno if first.lineno in lines else second.lineno
                upper, lower = text.code[a[0] : a[1]], text.code[b[0] : b[1]]
                yield line, a[0], b[1], _ended(lower) + upper


def _ended(line: str) -> str:
    return line if line.endswith("\n") else line + "\n"


EDIT_CLASS = SwappedStatements()
