"""Answers that edit the function instead of repeating it: SEARCH/REPLACE blocks (aider's
form) or unified-diff hunks. A long function with a long docstring costs a small model
500-1,500 tokens to repeat, and the answer is cut at the length limit or repeats the function
unchanged (issue 36); a block that names the changed lines costs a few dozen.

    <<<<<<< SEARCH
        if x > 0:
    =======
        if x >= 0:
    >>>>>>> REPLACE

Each block's SEARCH lines must be found in the function, exactly or line by line with other
indentation (then the REPLACE lines take the indentation the found lines have).
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

_BLOCK = re.compile(
    r"^[ \t]*<{5,9} ?SEARCH[^\n]*\n(.*?)^[ \t]*={5,9}[ \t]*\n(.*?)^[ \t]*>{5,9} ?REPLACE[^\n]*$",
    re.DOTALL | re.MULTILINE,
)
_HUNK = re.compile(r"^@@[^\n]*@@[^\n]*\n((?:[ +\-][^\n]*\n?|\n)+)", re.MULTILINE)


@dataclass(frozen=True)
class Edited:
    code: str | None  # the function with every block applied; None when one does not apply
    blocks: int  # how many blocks the answer holds (0: not an edit answer)
    problem: str = ""


def apply_edit_answer(reply: str, code: str) -> Edited:
    """`code` (the function, column 0) with the reply's SEARCH/REPLACE blocks, else its diff
    hunks, applied in order; Edited(None, 0) when the reply holds neither."""
    pairs = [(search, replace) for search, replace in _BLOCK.findall(reply)]
    kind = "SEARCH/REPLACE block"
    if not pairs:
        pairs = [_hunk_pair(body) for body in _HUNK.findall(reply)]
        kind = "diff hunk"
    if not pairs:
        return Edited(None, 0)
    for number, (search, replace) in enumerate(pairs, 1):
        changed = _replace_once(code, search, replace)
        if changed is None:
            shown = " ".join(search.split())[:80]
            why = f"{kind} {number}'s lines `{shown}` are not in the function"
            return Edited(None, len(pairs), why)
        code = changed
    return Edited(code if code.endswith("\n") else code + "\n", len(pairs))


def _hunk_pair(body: str) -> tuple[str, str]:
    search, replace = [], []
    for line in body.splitlines():
        mark, text = (line[:1], line[1:]) if line else (" ", "")
        if mark in (" ", "-"):
            search.append(text)
        if mark in (" ", "+"):
            replace.append(text)
    return "\n".join(search) + "\n", "\n".join(replace) + "\n"


def _line_aligned(code: str, search: str) -> int:
    """Where `search` occurs in `code` as whole lines; -1 when it does not."""
    if not search.endswith("\n"):
        return -1
    at = code.find(search)
    while at > 0 and code[at - 1] != "\n":
        at = code.find(search, at + 1)
    return at


def _replace_once(code: str, search: str, replace: str) -> str | None:
    if not search.strip():
        return None
    at = _line_aligned(code, search)
    if at >= 0:  # a block quoting a line's tail (its indentation dropped) is matched line by line
        return code[:at] + replace + code[at + len(search) :]
    lines = code.splitlines(keepends=True)
    wanted = [line.strip() for line in search.splitlines() if line.strip()]
    for start in range(len(lines)):
        found: list[int] = []
        at = start
        while at < len(lines) and len(found) < len(wanted):
            if lines[at].strip():
                if lines[at].strip() != wanted[len(found)]:
                    break
                found.append(at)
            at += 1
        if len(found) == len(wanted):
            first = lines[found[0]]
            indent = first[: len(first) - len(first.lstrip())]
            new = textwrap.indent(textwrap.dedent(replace), indent) if replace.strip() else ""
            return "".join(lines[: found[0]]) + new + "".join(lines[found[-1] + 1 :])
    return None
