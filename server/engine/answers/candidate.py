"""Turn a model reply into a checked candidate: the code of the target function, or a reason why
the reply cannot be used (that reason becomes the next turn's feedback).

The checks are structural, not trust: a candidate may only replace the target function (a reply
holding more is reduced to it first, see salvage.py), must parse in place, must not carry our
probes, and must pass `safety.review_candidate` (invisible/bidi characters and `global`
rebinding refused; newly used process, network, file and dynamic-code APIs flagged for the user).
"""

from __future__ import annotations

import ast
import hashlib
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field

from selfdebug.server.engine.answers.added_prints import strip_added_prints
from selfdebug.server.engine.answers.edit_blocks import apply_edit_answer
from selfdebug.server.engine.answers.fences import code_blocks, continued_code, text_outside
from selfdebug.server.engine.answers.safety import review_candidate
from selfdebug.server.engine.answers.salvage import salvage_function
from selfdebug.server.engine.target import TargetFunction

_BUG_LINE = re.compile(r"^\s*(?:#+\s*)?(?:\*\*)?bug(?:\*\*)?\s*:?\s*(.*)$", re.IGNORECASE)


@dataclass
class Candidate:
    """One model answer after extraction and checks."""

    reply: str
    code: str | None = None  # the function at column 0 (None when extraction failed)
    new_source: str | None = None  # the whole file with the function replaced
    explanation: str = ""
    problem: str = ""  # why it cannot be used ("" when usable)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what salvage dropped or moved
    cut: bool = False  # the reply stopped at the token limit before its code ended
    no_code: bool = False  # the reply ended (not cut) without any code: an explanation alone

    @property
    def ok(self) -> bool:
        return not self.problem and self.new_source is not None


def _strip_to_def_block(text: str) -> str:
    """Keep leading decorators/def and the indented body; stop at the first line back at
    column 0 (base models keep writing after the function: prose, tests, a new example)."""
    kept: list[str] = []
    started = False
    for line in text.splitlines():
        at_column0 = bool(line) and not line[0].isspace()
        if not started:
            if line.lstrip().startswith(("def ", "async def ", "@", "class ")):
                started = True
                kept.append(line)
            continue
        head = line.lstrip()
        if at_column0 and not head.startswith(("def ", "async def ", "@", ")", "]", "}")):
            break
        if at_column0 and head.startswith(("def ", "async def ", "@")) and kept:
            break  # a second function: not ours
        kept.append(line)
    return "\n".join(kept).rstrip() + "\n" if kept else ""


def extract_code(
    reply: str, function_name: str, opened_fence: bool, code_prefix: str = ""
) -> str | None:
    """The code block of a reply. With `opened_fence` the prompt ended inside a ```python fence
    (after `code_prefix`, e.g. the function's `def` line), so the reply continues that code up
    to the closing fence or the stop marker."""
    if opened_fence:
        first_prefix_line = code_prefix.strip().splitlines()[0] if code_prefix.strip() else ""
        continued = continued_code(reply)
        head = continued.body + "\n"
        if first_prefix_line and not head.lstrip().startswith(first_prefix_line):
            # the model continued our def line, as asked
            head = code_prefix + continued_code(reply, code_prefix).body + "\n"
        return _strip_to_def_block(head) or None
    blocks = [(block.lang, block.body) for block in code_blocks(reply)]
    pattern = rf"\bdef\s+{re.escape(function_name)}\b"
    defining = [body for _lang, body in blocks if re.search(pattern, body)]
    if defining:
        return defining[-1].strip("\n") + "\n"
    if blocks:
        return blocks[-1][1].strip("\n") + "\n"
    # No fence at all: a chat model that answered with bare code.
    return _strip_to_def_block(reply) or None


def extract_explanation(reply: str, opened_fence: bool) -> str:
    """The model's one-line account of the bug: a "Bug:" line/section, else the prose around."""
    text = reply
    if opened_fence:
        continued = continued_code(reply)
        text = "\n".join(reply.splitlines()[continued.end + 1 :]) if continued.closed else ""
    without_code = text_outside(text, code_blocks(text))
    lines = without_code.splitlines()
    for index, line in enumerate(lines):
        match = _BUG_LINE.match(line)
        if match:
            rest = match.group(1).strip()
            following = []
            for nxt in lines[index + 1 :]:
                if not nxt.strip() or nxt.lstrip().startswith(("#", "```")):
                    break
                following.append(nxt.strip())
            found = " ".join([rest, *following]).strip()
            if found:
                return found[:600]
    prose = " ".join(line.strip() for line in lines if line.strip() and not line.startswith("#"))
    return prose[:600]


def _code_closed(reply: str, opened_fence: bool) -> bool:
    """Whether the reply's code block ends with its closing fence (a reply cut by the token
    limit after that still holds the whole code)."""
    if opened_fence:
        return continued_code(reply).closed
    blocks = code_blocks(reply)
    return bool(blocks) and all(block.closed for block in blocks)


def check_candidate(
    reply: str,
    target: TargetFunction,
    source: str,
    *,
    opened_fence: bool = False,
    code_prefix: str = "",
    contains_probes: Callable[[str], bool] | None = None,
    truncated: bool = False,
    strip_new_prints: bool = False,
    edit_base: str | None = None,
) -> Candidate:
    """Extract the function from `reply` and check it can replace `target` in `source`.

    `truncated`: the model stopped at its token limit (finish_reason "length"); unless the code
    block closed before that, the code is cut and is never used, and a cut reply that gives no
    usable change is marked `cut` (the session asks again). `strip_new_prints` (print mode):
    print statements the original did not have are taken out of the fix. `edit_base`: the
    function as the prompt showed it, which an edit answer's blocks change (the target's code
    when None; a later turn shows the best attempt so far)."""
    candidate = _check(
        reply, target, source, opened_fence, code_prefix, contains_probes, truncated,
        strip_new_prints, edit_base or target.code,
    )  # fmt: skip
    unchanged = candidate.ok and same_code(candidate.code or "", target.code)
    if truncated and not candidate.cut and (not candidate.ok or unchanged):
        # e.g. the closed block was the original quoted in the reasoning, the fix never came
        candidate.cut = True
        candidate.code = candidate.new_source = None
        candidate.problem = (
            "the answer was cut off at the length limit before it gave a changed function; "
            "give the code first and keep the explanation short"
        )
    return candidate


def _check(
    reply: str,
    target: TargetFunction,
    source: str,
    opened_fence: bool,
    code_prefix: str,
    contains_probes: Callable[[str], bool] | None,
    truncated: bool,
    strip_new_prints: bool,
    edit_base: str,
) -> Candidate:
    candidate = Candidate(reply=reply)
    edited = apply_edit_answer(reply, edit_base)  # a long function need not be repeated
    if edited.problem and edit_base != target.code:
        # blocks that quote the original function (the model read it in earlier turns) where
        # the version shown has changed those lines: applied to the original
        original = apply_edit_answer(reply, target.code)
        if original.code is not None:
            edited = original
            candidate.notes.append("the edit blocks quote the original function: applied to it")
    if edited.problem:
        candidate.problem = edited.problem
        return candidate
    code = edited.code or extract_code(reply, target.name, opened_fence, code_prefix)
    candidate.explanation = extract_explanation(reply, opened_fence)
    if truncated and not _code_closed(reply, opened_fence):
        candidate.cut = True
        candidate.problem = (
            "the answer was cut off at the length limit before its code ended; give the code "
            "first and keep the explanation short"
        )
        return candidate
    if not code or not code.strip():
        candidate.no_code = True
        candidate.problem = (
            f"the answer holds no code; give the whole function `{target.name}` in a "
            "```python block"
        )
        return candidate
    review = review_candidate(target.code, code)  # safety.py: refusals, on everything shown
    if review.problem:
        candidate.problem = review.problem
        return candidate
    code = textwrap.dedent(code)
    try:
        tree = ast.parse(code)
    except SyntaxError as error:
        candidate.problem = f"the code does not parse (line {error.lineno}: {error.msg})"
        return candidate
    salvaged = salvage_function(code, tree, target, source)
    candidate.notes += salvaged.notes
    if salvaged.problem:
        candidate.problem = salvaged.problem
        return candidate
    code = salvaged.code
    if strip_new_prints:
        code, removed = strip_added_prints(code, target.code)
        if removed:
            candidate.notes.append(f"removed {removed} debugging print(s) from the fix")
    if contains_probes is not None and contains_probes(code):
        candidate.problem = "the code still contains the debugging probes we inserted"
        return candidate
    review = review_candidate(target.code, code)  # what is kept: warnings for the user
    if review.problem:
        candidate.problem = review.problem
        return candidate
    new_source = target.replace_in(source, code)
    try:
        ast.parse(new_source)
    except SyntaxError as error:
        candidate.problem = (
            f"the function does not fit in the file (line {error.lineno}: {error.msg})"
        )
        return candidate
    candidate.code = code if code.endswith("\n") else code + "\n"
    candidate.new_source = new_source
    candidate.warnings = review.warnings
    return candidate


def program_key(code: str) -> str:
    """The same key for two texts of the same program (formatting, comments and docstrings
    aside): a model that only drops the docstring has not changed anything."""
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        return code.strip()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


def same_code(a: str, b: str) -> bool:
    return program_key(a) == program_key(b)


def program_hash(code: str) -> str:
    """A short name of `code`'s program (`program_key`): what a transcript records of each
    candidate, so that a reader can tell which one is the upstream fix without its text."""
    return hashlib.sha1(program_key(code).encode("utf-8")).hexdigest()[:12]


def count_print_calls(code: str) -> int:
    """print() calls in a function: in print mode a fix must not keep the debugging prints."""
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        return 0
    return sum(
        1
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"
    )
