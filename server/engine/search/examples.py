"""The real fixes each edit class is known by (registry.py): minimal before/after pairs, each
reduced from one fix commit of a public repository and cited as
`owner/repo@commit:path::function`. Reduced means: statements that play no part in the fix are
removed, so an example is an illustration of the fix pattern, not the project's code.

`lines` are the example's changed lines (1-based in `before`), where the search is told to look;
`raises` and `characters` stand for the failing tests' evidence (evidence.py) that the fix
commit's own tests gave.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Example:
    source: str  # owner/repo@commit:path::function
    before: str  # the buggy function, reduced
    after: str  # the fixed function, reduced
    lines: tuple[int, ...]  # the changed lines of `before` (1-based)
    raises: tuple[str, ...] = ()
    characters: tuple[str, ...] = ()


EXAMPLES: dict[str, tuple[Example, ...]] = {}
