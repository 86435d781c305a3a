"""Every edit class of the search, once: its name, what it changes, where it is tried, its size,
and the real fix commits that show it (cosmic-ray's operators, TBar's fix templates).

The generators (edits.py, statements.py, updates.py, raises.py, strings.py, pairs.py) yield a
class name with each change; the size, which orders the candidates, comes from here and only
here. A class earns its place by recurring in real fixes: its `examples` are before/after pairs
reduced from fix commits of at least two projects (`owner/repo@commit:path::function`), and
tests/test_search_registry.py checks that the class makes each example's fix from its buggy
version. docs/MODES.md's table of classes is checked against this registry.
"""

from __future__ import annotations

from dataclasses import dataclass

from selfdebug.server.engine.search.examples import EXAMPLES, FOUND, Example

MIN_EXAMPLE_COMMITS = 3
MIN_EXAMPLE_PROJECTS = 2


@dataclass(frozen=True)
class EditClass:
    """One kind of small repair the search tries."""

    name: str
    changes: str  # what the edit does, in one line
    where: str  # where it is tried
    size: int  # 1 a token, 2 a name or an order, 3 a statement, 4 a guessed statement
    evidence: str = ""  # what of the failing tests it needs; "" when it needs none
    combines: bool = False  # made of two edits of the classes above (a pair)

    @property
    def examples(self) -> tuple[Example, ...]:
        return EXAMPLES.get(self.name, ())

    def projects(self) -> set[str]:
        """The repositories its examples come from (`owner/repo`)."""
        return {example.source.split("@", 1)[0] for example in self.examples}


_CLASSES = (
    # operators and literals
    EditClass("comparison-operator", "a comparison swapped within its class, the boundary "
              "(`<` <-> `<=`) or negation (`==` <-> `!=`) first; `is`/`is not`, `in`/`not in`",
              "a comparison at a ranked line", 1),
    EditClass("arithmetic-operator", "an arithmetic or bitwise operator swapped within its "
              "class (`+` -> `-`, `&` -> `^`), augmented assignments too", "a binary operation "
              "or augmented assignment at a ranked line", 1),
    EditClass("boolean-operator", "`and` <-> `or`", "a boolean operation at a ranked line", 1),
    EditClass("negated-condition", "a condition negated (`if x:` -> `if not x:`)",
              "the test of an if, while, conditional expression or assert", 1),
    EditClass("dropped-not", "`not x` -> `x`", "a `not` at a ranked line", 1),
    EditClass("integer-literal", "an integer literal +-1 (never below 0)",
              "an integer literal at a ranked line", 1),
    EditClass("boolean-literal", "`True` <-> `False`", "a boolean literal at a ranked line", 1),
    EditClass("missing-f-prefix", "the `f` of a string that writes `{name}` of an in-scope "
              "name", "a string used as a value at a ranked line", 1),
    EditClass("other-literal", "another literal of the same type that the function writes",
              "a literal at a ranked line", 2),
    # bounds and conditions
    EditClass("shifted-bound", "a range, slice or index bound, or a `len()`, moved by one",
              "bounds at a ranked line", 1),
    EditClass("shifted-argument", "a call argument moved by one", "a call's argument", 2),
    EditClass("dropped-condition", "one side of `a and b` / `a or b` dropped",
              "a two-part boolean operation", 3),
    EditClass("converted-value", "a value converted: `x` -> `str(x)`, `list(x)`, `int(x)`, "
              "`float(x)`", "a value read at a ranked line", 2,
              evidence="a failing test's TypeError"),
    EditClass("none-test", "a truth test made a None test: `x` -> `x is not None`, `not x` -> "
              "`x is None`", "a condition, or an operand of its `and`/`or`", 2),
    EditClass("empty-guarded-list", "a one-element list made empty when its element is: "
              "`[x]` -> `[x] if x else []`, or a name the element reads as the condition",
              "a one-element list at a ranked line", 3),
    EditClass("none-check", "a missing None check: `C` -> `x is not None and C` or `x is None "
              "or C`, `x` a name the condition reads or a parameter", "the test of an if, elif "
              "or while at a ranked line", 3),
    # names and orders
    EditClass("other-name", "another in-scope variable in a name's place",
              "a name read at a ranked line", 2),
    EditClass("other-attribute", "another attribute the function reads",
              "an attribute read at a ranked line", 2),
    EditClass("sibling-method", "a method made its sibling of the same arguments: `split` <-> "
              "`rsplit`, `match` -> `search`, `get` -> `pop`, `strip` -> `lstrip`, ...",
              "a method call at a ranked line", 2),
    EditClass("own-class-name", "a method's own class, named, made the class it runs in: "
              "`C(...)` -> `type(self)(...)`, `cls(...)` in a classmethod",
              "the class's name in one of its methods", 2),
    EditClass("sibling-argument", "what another call of the same function passes at that "
              "position", "a call's argument", 2),
    EditClass("swapped-arguments", "two adjacent call arguments swapped", "a call", 2),
    EditClass("swapped-unpacking", "two adjacent names of an unpacking swapped",
              "an assignment to a tuple", 2),
    EditClass("dropped-term", "a term of `a + b`, `a - b`, `a * b` dropped",
              "a binary operation", 2),
    # statements
    EditClass("other-returned-name", "another in-scope name returned", "a return", 3),
    EditClass("missing-return", "a `return` put back (a value computed, then dropped)",
              "an expression statement, or the function's end", 2),
    EditClass("deleted-statement", "a statement deleted", "a simple statement", 3),
    EditClass("swapped-statements", "two adjacent simple statements swapped",
              "adjacent statements", 3),
    EditClass("raised-exception", "`raise A(...)` -> `raise X(...)`", "a raise", 2,
              evidence="a failing test's `pytest.raises(X)`"),
    # combinations of the classes above
    EditClass("same-edit-everywhere", "a literal, name or order edit made at every place the "
              "function writes the same text", "after the single edits", 0, combines=True),
    EditClass("pair", "two small operator, literal or bound edits at different places of "
              "one line", "after the single edits", 0, combines=True),
)  # fmt: skip

REGISTRY: dict[str, EditClass] = {c.name: c for c in _CLASSES}


def size_of(name: str) -> int:
    """The size of class `name`; a generator that names no registered class is a bug."""
    return REGISTRY[name].size


def unproven() -> list[EditClass]:
    """Classes whose examples show fewer real fix commits or projects than a class needs."""
    return [
        c
        for c in REGISTRY.values()
        if (
            len({e.source for e in c.examples}) < MIN_EXAMPLE_COMMITS
            or len(c.projects()) < MIN_EXAMPLE_PROJECTS
        )
    ]


def markdown_table() -> str:
    """The classes as docs/MODES.md lists them (tests/test_search_registry.py keeps the two
    the same)."""
    rows = [
        "| class | what it changes | where | size | needs | fix commits it makes (projects) "
        "| examples kept |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for c in REGISTRY.values():
        commits, projects = FOUND.get(c.name, (0, 0))
        needs = c.evidence or "-"
        size = "its parts'" if c.combines else str(c.size)
        rows.append(
            f"| `{c.name}` | {c.changes} | {c.where} | {size} | {needs} | {commits} ({projects}) "
            f"| {len(c.examples)} |"
        )
    return "\n".join(rows) + "\n"
