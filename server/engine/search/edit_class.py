"""What an edit class is (cosmic-ray's operator, TBar's fix template): one kind of small repair
the search tries, with where it applies, what it changes, its size, and the real fix commits
that show it. Each class is one module of `classes/` (registry.py finds them); the edit it
makes is an `Edit`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from selfdebug.server.engine.search.scope import Scope, Span
from selfdebug.server.runner.search_runner import CandidateCode

if TYPE_CHECKING:
    from selfdebug.server.engine.target import TargetFunction

LineSpan = tuple[int, int, int, str]  # (code line, start, end, replacement)


@dataclass(frozen=True)
class Outside:
    """A change of the module outside the function (places.py: a constant it reads, an
    attribute of its class): one token of one statement, replaced in the file's text."""

    start: int  # the changed span of the file's text (characters)
    end: int
    replacement: str  # no line break: the file keeps its line numbers
    statement: str  # the whole statement after the change (run where it is defined)
    before: str  # ... and before it
    namespace: str = ""  # the class it is set in (`Outer.Inner`), "" for the module

    def applied(self, source: str) -> str:
        return source[: self.start] + self.replacement + source[self.end :]


@dataclass(frozen=True)
class Edit:
    """One candidate: the whole function text after the change, and what changed where."""

    line: int  # 1-based file line of the change
    rank: int  # rank of that line among the suspicious lines (0 = most suspicious)
    size: int  # the class's size; a combination: its parts' sizes added
    edit_class: str  # its class's name (classes/)
    before: str
    after: str
    code: str  # the function text (column 0) with the change
    start: int = 0  # the changed span of the original text (characters)
    end: int = 0
    parts: tuple[Edit, ...] = ()  # a pair: the single edits it combines
    origin: str = ""  # who wrote it when not a class: "the model at line 7 (sample 3 of 8)"
    outside: Outside | None = None  # a change outside the function (`code` is then unchanged)
    defaults: bool = False  # it changes a default value of the def line (places.py)
    place: str = ""  # a place outside the body (places.py), for the user: "constant LIMIT"

    def describe(self) -> str:
        if self.parts:
            return " and ".join(part.describe() for part in self.parts)
        if not self.before.strip():
            return f"line {self.line}: insert `{_short(self.after)}`"
        after = self.after.strip() or "(deleted)"
        where = f" ({self.place})" if self.place else ""
        return f"line {self.line}{where}: `{_short(self.before)}` -> `{_short(after)}`"

    @property
    def program(self) -> str:
        """What tells two candidates apart: the function text, after the changed statement
        when the change is outside it (two edits of a constant leave `code` alike)."""
        return f"{self.outside.statement.rstrip()}\n{self.code}" if self.outside else self.code

    def original_program(self, original: str) -> str:
        """`program` before the change, `original` the function's text."""
        return f"{self.outside.before.rstrip()}\n{original}" if self.outside else original

    def candidate(self, id: int, first_line: int) -> CandidateCode:
        """What the judge's test process runs (server/runner/search_runner.py)."""
        outside = ((self.outside.namespace, self.outside.statement),) if self.outside else ()
        return CandidateCode(id, self.code, first_line, outside, self.defaults)

    def new_source(self, source: str, target: TargetFunction) -> str:
        """The file's text `source` (where `target` was found) with the edit."""
        text = self.outside.applied(source) if self.outside else source
        return target.replace_in(text, self.code)

    @property
    def lines(self) -> tuple[int, ...]:
        """The file lines it changes (two for a pair at two lines)."""
        return tuple(sorted({p.line for p in self.parts})) if self.parts else (self.line,)


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Example:
    """A real fix the class makes: a minimal before/after pair reduced from one fix commit of a
    public repository (statements that play no part in the fix removed, while the class still
    makes it), cited as `owner/repo@commit:path::function`. Found by mining the histories of
    public repositories for commits that change one function by a few lines and say they fix
    something, then asking every class whether it makes the commit's fix."""

    source: str  # owner/repo@commit:path::function
    before: str  # the buggy function, reduced
    after: str  # the fixed function, reduced
    lines: tuple[int, ...]  # the changed lines of `before` (1-based): where the search looks
    raises: tuple[str, ...] = ()  # what the fix commit's failing tests expect raised
    failed_with: tuple[str, ...] = ()  # what they raised (engine/evidence.py)

    @property
    def class_name(self) -> str:
        """The class of a method (`Query` of `...::Query.__getattr__`); "" for a function."""
        qualname = self.source.rsplit("::", 1)[-1]
        return qualname.rsplit(".", 1)[0] if "." in qualname else ""


def example(
    source: str,
    before: str,
    after: str,
    *lines: int,
    raises: tuple[str, ...] = (),
    failed_with: tuple[str, ...] = (),
) -> Example:
    return Example(source, before, after, tuple(lines), raises, failed_with)


class EditClass:
    """One kind of small repair. A class module of `classes/` subclasses it, sets the
    attributes and makes its changes in one of three ways:
    - `at(node, scope)`: the changes of one node of the types `nodes`, at a suspicious line;
    - `in_function(scope, lines)`: changes of whole statements at the suspicious `lines`;
    - `combine(...)`: edits made of the single edits of the classes `combines`.
    Candidates come ordered by their line's rank, then `size`, then where they were made;
    among the changes of one node of one size, the class of lower `order` comes first."""

    name: str = ""
    changes: str = ""  # what the edit does, in one line
    where: str = ""  # where it is tried
    size: int = 0  # 1 a token, 2 a name or an order, 3 a statement, 4 a guessed statement
    order: int = 0  # its row in the registry (unique)
    evidence: str = ""  # what of the failing tests it needs; "" when it needs none
    nodes: tuple[type[ast.AST], ...] = ()  # the nodes `at` is asked about
    combines: tuple[str, ...] = ()  # the classes whose edits a combination combines
    found: tuple[int, int] = (0, 0)  # (fix commits, projects) of the mined pool it makes
    examples: tuple[Example, ...] = ()

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        """The changes of `node` (one of `nodes`)."""
        return iter(())

    def in_function(self, scope: Scope, lines: set[int]) -> Iterator[LineSpan]:
        """Changes of statements at the function text's `lines` (1-based)."""
        return iter(())

    def combine(
        self, singles: Sequence[Edit], code: str, body_start: int, limit: int
    ) -> Iterator[Edit]:
        """At most `limit` edits combined from `singles` (edits of `code`, best first);
        `body_start` the offset of the body (the header's parameters stay)."""
        return iter(())

    def most(self, limit: int) -> int:
        """How many of `limit` candidates a combination takes at most."""
        return limit

    def projects(self) -> set[str]:
        """The repositories its examples come from (`owner/repo`)."""
        return {e.source.split("@", 1)[0] for e in self.examples}
