"""What the failing tests say the function should do, read from their failure text (pytest shows
the test's source and the values there): the exceptions they expect raised, and the
punctuation their string arguments are made of.

The edit search uses both to make a few edits no rule of the function's own code suggests:
`else: raise X` where a test expects `X` (mutate_raises.py), and a one-character literal that
the function compares with replaced by a character the tests' strings use and the function
never writes (`string[i] == '('` where every test passes brackets `[`/`]`).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selfdebug.server.runner.results import RunResult

_EXPECTS = re.compile(
    r"\b(?:pytest\.raises|raises|assertRaises|assertRaisesRegex)\(\s*(?:\(\s*)?([A-Za-z_][\w.]*)"
)
_QUOTED = re.compile(r"'([^'\\\n]{1,60})'|\"([^\"\\\n]{1,60})\"")
_PUNCTUATION = set(string.punctuation) - {"'", '"', "\\"}
MAX_EXCEPTIONS = 3
MAX_CHARACTERS = 4


@dataclass(frozen=True)
class Expected:
    raises: tuple[str, ...] = ()  # exception names (last dotted part), first mentioned first
    characters: tuple[str, ...] = ()  # punctuation of the tests' strings, commonest first


NOTHING_EXPECTED = Expected()


def expected_from(run: RunResult | None) -> Expected:
    """What the failing tests of `run` expect (nothing when `run` is None or all pass)."""
    if run is None:
        return NOTHING_EXPECTED
    raises: list[str] = []
    characters: Counter[str] = Counter()
    for test in run.tests:
        if test.ok:
            continue
        for match in _EXPECTS.finditer(test.longrepr):
            name = match.group(1).rsplit(".", 1)[-1]
            if name[:1].isupper() and name not in raises:
                raises.append(name)
        for match in _QUOTED.finditer(test.longrepr):
            characters.update(c for c in match.group(1) or match.group(2) if c in _PUNCTUATION)
    common = tuple(c for c, _count in characters.most_common(MAX_CHARACTERS))
    return Expected(tuple(raises[:MAX_EXCEPTIONS]), common)
