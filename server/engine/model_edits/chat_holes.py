"""The hole asked for in a chat, for models and endpoints without fill-in-the-middle (an
OpenAI-style chat endpoint, a chat model without FIM tokens): the function with the hole marked,
the evidence, and the request to answer with the marked place's code only, never the whole
function (issue 36 item 5); a hole of a few lines (holes.py) says what it lacks. The answer is
made into what a FIM answer looks like, so that samples.py cuts and judges it the same way.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

from selfdebug.server.backends.base import Message
from selfdebug.server.engine.model_edits.holes import Hole, lines_after
from selfdebug.server.engine.target import TargetFunction

MARK = "# >>> the code for this place <<<"
SYSTEM = (
    "You repair one place in a Python function. Answer with only the code for the marked place, "
    "in one ```python block: one line, or the few lines that place needs. Never repeat the rest "
    "of the function."
)
MISSING = {  # what an insertion hole lacks, by its kind (holes.py)
    "gap": "A statement is missing at the marked place.\n",
    "guard": "A check (a condition with its body) is missing at the marked place.\n",
    "branch": "A branch of the if/elif chain is missing at the marked place.\n",
}
_FENCED = re.compile(r"```[a-zA-Z0-9_+-]*\n(.*?)(?:```|\Z)", re.DOTALL)


def messages(target: TargetFunction, hole: Hole, evidence: Sequence[str]) -> list[Message]:
    lines = target.code.splitlines()
    shown = [*lines[: hole.first - 1], hole.indent + MARK, *lines_after(hole, lines)]
    text = "```python\n" + "\n".join(shown) + "\n```\n"
    if hole.replaced > 0:
        was = " ".join(line.strip() for line in lines[hole.first - 1 : hole.last])
        text += f"The marked place was: `{was}`, and it is wrong"
        text += ": it may take a few lines.\n" if hole.kind == "grown" else ".\n"
    else:
        text += MISSING.get(hole.kind, MISSING["gap"])
    text += "".join(f"{line[:1].upper()}{line[1:]}.\n" for line in evidence)
    text += "Write the code for the marked place."
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]


def as_infill(reply: str, file_indent: str, hole: Hole) -> str:
    """The reply's code as a FIM answer: its first line without indentation, the later ones
    in the file's indentation (the function's plus the hole's)."""
    fenced = _FENCED.search(reply)
    code = fenced.group(1) if fenced else reply
    lines = [line for line in textwrap.dedent(code).splitlines() if line.strip() != MARK.strip()]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        return ""
    at = file_indent + hole.indent
    return "\n".join([lines[0].strip(), *(at + line if line.strip() else "" for line in lines[1:])])
