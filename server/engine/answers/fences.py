"""The code blocks of a model reply, found by what parses rather than by the first fence.

A function documented for mkdocs holds a Markdown example in its docstring (```` ```pycon ````
... ```` ``` ````). One regex stops the reply's block at that inner fence, leaving an
unterminated triple-quoted string: every answer for such a function was rejected as "does not
parse" (seen on a real repository). Here a fence line only closes a block when the code
before it parses as Python; where no fence line does, the first one closes it, as before (a
block that never parses is then reported as it is).
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass

_OPENING = re.compile(r"^[ \t]*```[ \t]*([\w+-]*)[ \t]*$")
_ANY_FENCE = re.compile(r"^[ \t]*```")


@dataclass(frozen=True)
class CodeBlock:
    lang: str
    body: str  # the lines between the fences, without a trailing newline
    closed: bool  # ended by a fence (not by the end of the reply)
    start: int  # line index of the opening fence (-1: the block was open before the reply)
    end: int  # line index of the closing fence (len(lines) when not closed)


def parses(code: str) -> bool:
    try:
        ast.parse(textwrap.dedent(code))
    except (SyntaxError, ValueError):
        return False
    return True


def _closing_line(lines: list[str], first: int, is_python: bool) -> int | None:
    """The line that closes a block whose code starts at `first`: for Python, the first fence
    line before which the code parses, else the first fence line; None: never closed."""
    fence_lines = [i for i in range(first, len(lines)) if _ANY_FENCE.match(lines[i])]
    if not fence_lines:
        return None
    if is_python:
        for index in fence_lines:
            if parses("\n".join(lines[first:index])):
                return index
    bare = [i for i in fence_lines if _is_bare_fence(lines[i])]
    return bare[0] if bare else fence_lines[0]


def _is_bare_fence(line: str) -> bool:
    """A fence with no language tag: the only kind that closes a block in Markdown."""
    opening = _OPENING.match(line)
    return opening is not None and not opening[1]


def _is_python(lang: str) -> bool:
    return lang.lower() in ("", "python", "py", "python3")


def code_blocks(reply: str) -> list[CodeBlock]:
    """Every fenced block of a reply, in order; an unclosed last block runs to the end."""
    lines = reply.splitlines()
    blocks: list[CodeBlock] = []
    index = 0
    while index < len(lines):
        opening = _OPENING.match(lines[index])
        if not opening:
            index += 1
            continue
        lang = opening[1]
        end = _closing_line(lines, index + 1, _is_python(lang))
        closed = end is not None
        stop = end if end is not None else len(lines)
        blocks.append(CodeBlock(lang, "\n".join(lines[index + 1 : stop]), closed, index, stop))
        index = stop + 1
    return blocks


def continued_code(reply: str, prefix: str = "") -> CodeBlock:
    """The code of a reply that continues a ```python block the prompt opened (after `prefix`,
    e.g. the function's def line): it runs to the fence before which prefix + code parses."""
    lines = reply.splitlines()
    fence_lines = [i for i, line in enumerate(lines) if _ANY_FENCE.match(line)]
    for index in fence_lines:
        if parses(prefix + "\n".join(lines[:index])):
            return CodeBlock("python", "\n".join(lines[:index]), True, -1, index)
    if fence_lines:
        first = fence_lines[0]
        return CodeBlock("python", "\n".join(lines[:first]), True, -1, first)
    return CodeBlock("python", "\n".join(lines), False, -1, len(lines))


def text_outside(reply: str, blocks: list[CodeBlock]) -> str:
    """The reply's prose: each block (fences included) replaced by one empty line, so the
    paragraphs before and after it stay apart."""
    lines = reply.splitlines()
    kept: list[str] = []
    index = 0
    for block in blocks:
        kept += [*lines[index : max(block.start, 0)], ""]
        index = block.end + 1
    kept += lines[index:]
    return "\n".join(kept)
