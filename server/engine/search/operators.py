"""Python's operators as the search swaps them: their spellings by `ast` node, the classes of
operators a slip stays within (`<` for `<=`, `+` for `-`, never `<` for `+`), and which
replacement comes first.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence

ARITHMETIC = ["+", "-", "*", "/", "//", "%"]
BITWISE = ["&", "|", "^", "<<", ">>"]
COMPARISON = ["<", "<=", ">", ">=", "==", "!="]
IDENTITY = ["is", "is not"]
MEMBERSHIP = ["in", "not in"]
# the nearest comparisons first: the boundary (`<` <-> `<=`) or the negation (`==` <-> `!=`),
# the commonest slips, then the others (which replacement is tried first decides between two
# at one line that the tests cannot tell apart)
_NEAREST = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}

BINOP = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
    ast.Pow: "**",
}  # fmt: skip
CMPOP = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}  # fmt: skip
# an operator's token in the text between two operands
TOKEN = re.compile(
    r"\*\*=?|//=?|<<=?|>>=?|<=|>=|==|!=|[-+*/%&|^@]=?|[<>]|\bnot\s+in\b|\bis\s+not\b"
    r"|\bin\b|\bis\b|\band\b|\bor\b"
)


def swaps_within(spelling: str, groups: Sequence[Sequence[str]]) -> Iterator[str]:
    """The other operators of the operator's own class (`<` -> `<=`, `>`, ...)."""
    for group in groups:
        if spelling in group:
            nearest = _NEAREST.get(spelling) if group is COMPARISON else None
            yield from [nearest] if nearest else []
            yield from (other for other in group if other not in (spelling, nearest))
