"""One edit made at every place the function writes the same text.

A value spelled at several places (a literal returned on two paths, a misspelled name used on
two lines, an unpacking order written twice) is wrong at each of them: the single edit at one
place leaves the others, and pairs across lines are not made (pair.py). The same change at
every place the text occurs is one candidate; 197 fix commits in 52 projects of the mined pool
change one text at several lines of a function."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from selfdebug.server.engine.search.edit_class import Edit, EditClass, example

SPREAD = 24  # single edits considered

EXAMPLES = (
    example(
        "pylint-dev/pylint@2bc5b3c7cd45:testutils.py::TestReporter.add_message",
        """\
def add_message(self, msg_id, location, msg):
    obj = location
    if object:
        object = ':%s' % obj
    self.messages.append('%s: %s' % (object, msg))
""",
        """\
def add_message(self, msg_id, location, msg):
    obj = location
    if obj:
        obj = ':%s' % obj
    self.messages.append('%s: %s' % (obj, msg))
""",
        3,
    ),
    example(
        "pypa/pip@7bb73f60ad44:src/pip/_internal/vcs/subversion.py::Subversion.get_revision",
        """\
def get_revision(self, location):
    for base, dirs, files in os.walk(location):
        if base == location:
            base_url = dirurl + '/'
        elif not dirurl or not dirurl.startswith(base_url):
            dirs[:] = []
""",
        """\
def get_revision(self, location):
    for base, dirs, files in os.walk(location):
        if base == location:
            base = dirurl + '/'
        elif not dirurl or not dirurl.startswith(base):
            dirs[:] = []
""",
        4,
        5,
    ),
    example(
        "python/mypy@aff6290f41e1:mypy/output.py::OutputVisitor.visit_class_def",
        """\
def visit_class_def(self, o):
    for i in range(len(o.base_exprs)):
        if o.base_exprs[i].repr:
            self.node(o.base_type_exprs[i])
""",
        """\
def visit_class_def(self, o):
    for i in range(len(o.base_type_exprs)):
        if o.base_type_exprs[i].repr:
            self.node(o.base_type_exprs[i])
""",
        2,
    ),
    example(
        "sphinx-doc/sphinx@c06b21725d02:sphinx/builders/latex.py::LaTeXBuilder.check_options",
        """\
def check_options(self):
    if self.config.latex_toplevel_sectioning not in (None, 'part'):
        self.warn('invalid: %s' % self.config.latex_top_sectionlevel)
        self.config.latex_top_sectionlevel = None
""",
        """\
def check_options(self):
    if self.config.latex_toplevel_sectioning not in (None, 'part'):
        self.warn('invalid: %s' % self.config.latex_toplevel_sectioning)
        self.config.latex_toplevel_sectioning = None
""",
        3,
    ),
    example(
        "statsmodels/statsmodels@7874f5d530cd:statsmodels/tsa/statespace/representation.py::Representation.state_cov",
        """\
def state_cov(self, state_cov):
    self._validate_matrix_shape(state_cov.shape, self.nstates, self.nstates, self.nobs)
    return self.nposdef
""",
        """\
def state_cov(self, state_cov):
    self._validate_matrix_shape(state_cov.shape, self.nposdef, self.nposdef, self.nobs)
    return self.nposdef
""",
        2,
    ),
)


class SameEditEverywhere(EditClass):
    name = "same-edit-everywhere"
    changes = "a literal, name or order edit made at every place the function writes the same text"
    where = "after the single edits"
    size = 0
    order = 300
    found = (9, 8)
    examples = EXAMPLES
    # edits of a literal, a name or an order: a text that reads the same wherever it is written
    combines = (
        "other-literal", "integer-literal", "boolean-literal", "other-name", "other-attribute",
        "swapped-unpacking", "sibling-method", "own-class-name",
    )  # fmt: skip

    def most(self, limit: int) -> int:
        return limit // 12

    def combine(
        self, singles: Sequence[Edit], code: str, body_start: int, limit: int
    ) -> Iterator[Edit]:
        """For each of the first `SPREAD` edits of a literal, name or order in `singles` whose
        text occurs at other places of the body too, the same change at every place."""
        chosen = [e for e in singles if e.edit_class in self.combines and not e.parts][:SPREAD]
        made = 0
        for edit in chosen:
            if made >= limit:
                return
            attribute = edit.start > 0 and code[edit.start - 1] == "."
            places = [p for p in _places(code, edit.before, attribute) if p[0] >= body_start]
            if len(places) < 2 or (edit.start, edit.end) not in places:
                continue
            text, parts = code, []
            first_line = edit.line - code.count("\n", 0, edit.start)
            for start, end in reversed(places):
                text = text[:start] + edit.after + text[end:]
            for start, end in places:
                line = first_line + code.count("\n", 0, start)
                parts.append(Edit(line, edit.rank, edit.size, edit.edit_class, edit.before,
                                  edit.after, text, start, end))  # fmt: skip
            made += 1
            yield Edit(
                line=edit.line,
                rank=edit.rank,
                size=edit.size + 1,
                edit_class=self.name,
                before=edit.before,
                after=edit.after,
                code=text,
                start=places[0][0],
                end=places[-1][1],
                parts=tuple(parts),
            )


def _places(code: str, text: str, attribute: bool) -> list[tuple[int, int]]:
    """Where `text` occurs in `code` as whole tokens (a name is not matched inside another);
    `attribute`: only after a dot (`x.text`), else never after one."""
    if not text.strip():
        return []
    head = r"(?<=\.)" if attribute else r"(?<![\w.])" if re.match(r"\w", text) else ""
    tail = r"(?!\w)" if re.search(r"\w$", text) else ""
    return [(m.start(), m.end()) for m in re.finditer(head + re.escape(text) + tail, code)]


EDIT_CLASS = SameEditEverywhere()
