"""Another in-scope variable (a parameter or a name the function assigns) in a name's place:
the commonest slip of the mined pool."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span

EXAMPLES = (
    example(
        "Kozea/WeasyPrint@5d95ed45031c:weasyprint/pdf/anchors.py::write_pdf_attachment",
        """\
def write_pdf_attachment(attachment):
    for data in iter(lambda: source.read(4096), b''):
        stream += data
    attachment.md5 = hashlib.md5(data).hexdigest()
""",
        """\
def write_pdf_attachment(attachment):
    for data in iter(lambda: source.read(4096), b''):
        stream += data
    attachment.md5 = hashlib.md5(stream).hexdigest()
""",
        4,
    ),
    example(
        "Suor/funcy@592b6eaa3b00:funcy/calc.py::cache.<locals>.decorator.<locals>.wrapper",
        """\
def wrapper(*args, **kwargs):
    key = key_func(*args, **kwargs)
    result = func(*key, **kwargs)
""",
        """\
def wrapper(*args, **kwargs):
    key = key_func(*args, **kwargs)
    result = func(*args, **kwargs)
""",
        3,
    ),
    example(
        "Textualize/rich@681cf914285d:rich/panel.py::Panel.fit",
        """\
def fit(cls, renderable, box, *, subtitle, subtitle_align):
    return cls(
        renderable,
        box,
        subtitle_align=subtitle,
    )
""",
        """\
def fit(cls, renderable, box, *, subtitle, subtitle_align):
    return cls(
        renderable,
        box,
        subtitle_align=subtitle_align,
    )
""",
        5,
    ),
    example(
        "aio-libs/aiohttp@84064cc87624:aiohttp/web.py::RequestHandler.handle_request",
        """\
def handle_request(self, message, payload):
    app = self._app
    request = Request(app, message, payload,
                      self.transport, self.writer, self.keep_alive_timeout)
    for middleware in reversed(self._middlewares):
        handler = middleware(app, handler)
""",
        """\
def handle_request(self, message, payload):
    app = self._app
    request = Request(app, message, payload,
                      self.transport, self.writer, self.keep_alive_timeout)
    for middleware in reversed(self._middlewares):
        handler = middleware(request, handler)
""",
        6,
    ),
)


class OtherName(EditClass):
    name = "other-name"
    changes = "another in-scope variable in a name's place"
    where = "a name read at a ranked line"
    size = 2
    order = 160
    found = (106, 35)
    examples = EXAMPLES
    nodes = (ast.Name,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.Name)
        if not isinstance(node.ctx, ast.Load) or node.id not in scope.local_names:
            return
        start, end = scope.text.span(node)
        for other in scope.local_names:
            if other != node.id:
                yield start, end, other


EDIT_CLASS = OtherName()
