"""What a model's code may not do, and what the user must be told about before accepting it.

Why a module of its own: the model's reply is untrusted text, and a name-only check is easy to
walk around (`__import__('os')`, `getattr(os, 'sys' + 'tem')`, `exec`). This module looks at the
candidate's syntax tree and compares it with the original function, so that only what the
candidate ADDS is reported:

- refused (a `problem`): invisible or bidirectional control characters that can hide code from
  a reviewer (zero-width and bidi marks, tag characters, variation selectors, the Hangul fillers
  such as U+3164 that render as blank yet are valid in identifiers, U+034F ...) unless the
  original function already contained that very character; and `global` statements that rebind
  names the original did not (a fix that silently changes module state outside the function);
- warned about (shown in the editor's confirmation, the report and the CLI): process, network,
  file-system and dynamic-code APIs (subprocess, socket, os.system, ctypes, ...), `__import__`,
  `importlib`, `exec`/`eval`/`compile`, `getattr`/`setattr` with a computed name, `open` for
  writing, `globals()`/`vars()`/`locals()`, and calls in default arguments or decorators (they run
  when the module is imported, before any test).

The checks are structural; they do not make a candidate safe to run (the sandbox does that),
they make what it does visible to the person who accepts it.
"""

from __future__ import annotations

import ast
import textwrap
import unicodedata
from dataclasses import dataclass, field

# Invisible characters that are not in Unicode's "format" category (Cf, checked as a whole).
_INVISIBLE_EXTRA = frozenset(
    "\u034f"  # combining grapheme joiner
    "\u115f\u1160\u3164\uffa0"  # Hangul fillers: blank, yet letters (valid in identifiers)
    "\u17b4\u17b5"  # Khmer inherent vowels
    "\u180b\u180c\u180d\u180e\u180f"  # Mongolian variation selectors and vowel separator
    "\u2800"  # braille blank
)


def is_invisible(char: str) -> bool:
    """Zero-width, bidi, tag, variation-selector and filler characters (not plain whitespace)."""
    code = ord(char)
    return (
        unicodedata.category(char) == "Cf"  # bidi marks, ZW(N)J, tag characters, U+FEFF ...
        or char in _INVISIBLE_EXTRA
        or 0xFE00 <= code <= 0xFE0F  # variation selectors (U+FE0F: emoji presentation)
        or 0xE0100 <= code <= 0xE01EF  # variation selectors supplement
        or 0xE0000 <= code <= 0xE007F  # tag characters (some are not Cf in every version)
    )


def invisible_characters(text: str) -> list[str]:
    """The distinct invisible characters in `text`, as 'U+XXXX NAME'."""
    found = dict.fromkeys(c for c in text if is_invisible(c))
    return [f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in found]


# Dotted names whose NEW use deserves a warning: they reach outside the function's data.
RISKY_NAMES = (
    "subprocess", "socket", "os.system", "os.popen", "os.exec", "os.spawn", "os.fork",
    "os.remove", "os.unlink", "os.rmdir", "os.kill", "os.environ", "os.putenv", "ctypes",
    "shutil.rmtree", "shutil.move", "urllib", "http.client", "requests", "httpx", "pickle",
    "marshal", "importlib", "builtins", "sys.modules", "pty", "multiprocessing",
)  # fmt: skip
DYNAMIC_CALLS = {
    "__import__": "imports a module by a computed name (__import__)",
    "exec": "runs code from a string (exec)",
    "eval": "evaluates code from a string (eval)",
    "compile": "compiles code from a string (compile)",
    "globals": "reaches the module's globals (globals())",
    "vars": "reaches a namespace dictionary (vars())",
    "locals": "reaches a namespace dictionary (locals())",
    "breakpoint": "starts a debugger (breakpoint())",
    "input": "waits for input (input())",
}
_WRITE_MODES = set("wax+")


@dataclass
class SafetyReview:
    problem: str = ""  # why the candidate is refused ("" when it is not)
    warnings: list[str] = field(default_factory=list)  # what the user must see before accepting


def review_candidate(original: str, candidate: str) -> SafetyReview:
    """Compare the candidate function's code with the original one's."""
    review = SafetyReview()
    original, candidate = textwrap.dedent(original), textwrap.dedent(candidate)
    new_invisible = [c for c in invisible_characters(candidate) if c not in set(
        invisible_characters(original))]  # fmt: skip
    if new_invisible:
        review.problem = (
            "the code contains invisible or bidirectional control characters "
            f"({', '.join(new_invisible[:3])})"
        )
        return review
    try:
        before, after = ast.parse(original), ast.parse(candidate)
    except SyntaxError:
        return review  # the caller reports the syntax error
    new_globals = sorted(_globals(after) - _globals(before))
    if new_globals:
        review.problem = (
            f"the code declares `global {', '.join(new_globals)}`: a fix may not rebind names "
            "outside the function"
        )
        return review
    found = [w for w in _findings(after) if w not in set(_findings(before))]
    review.warnings = [f"the candidate {w}" for w in dict.fromkeys(found)]
    return review


def _globals(tree: ast.AST) -> set[str]:
    return {name for n in ast.walk(tree) if isinstance(n, ast.Global) for name in n.names}


def _findings(tree: ast.AST) -> list[str]:
    findings: list[str] = []
    names = _dotted_names(tree)
    findings += [f"newly uses {r}" for r in RISKY_NAMES if any(_is(n, r) for n in names)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            findings += _call_findings(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            findings += _definition_time_code(node)
    return findings


def _is(name: str, risky: str) -> bool:
    return name == risky or name.startswith(risky + ".")


def _call_findings(call: ast.Call) -> list[str]:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else ""
    attribute = func.attr if isinstance(func, ast.Attribute) else ""
    if name in DYNAMIC_CALLS:
        return [DYNAMIC_CALLS[name]]
    if name in ("getattr", "setattr", "delattr", "hasattr") and len(call.args) >= 2:
        if not (isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str)):
            return [f"reaches an attribute by a computed name ({name})"]
        if call.args[1].value.startswith("__"):
            return [f"reaches a dunder attribute ({name} {call.args[1].value!r})"]
    if name == "open" or attribute == "open":
        mode = _open_mode(call)
        if mode is None:
            return ["opens a file with a computed mode (open)"]
        if _WRITE_MODES & set(mode):
            return [f"opens a file for writing (open mode {mode!r})"]
    if attribute in ("write_text", "write_bytes", "unlink", "rmdir", "rename", "replace", "chmod"):
        return [f"changes files ({attribute})"]
    return []


def _open_mode(call: ast.Call) -> str | None:
    mode: ast.expr | None = call.args[1] if len(call.args) >= 2 else None
    for keyword in call.keywords:
        if keyword.arg == "mode":
            mode = keyword.value
    if mode is None:
        return "r"
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return mode.value
    return None


def _definition_time_code(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[str]:
    """Calls in decorators and default values run when the module is imported."""
    args = node.args
    defaults = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    decorators = [] if isinstance(node, ast.Lambda) else node.decorator_list
    findings = []
    for where, exprs in (("a default argument", defaults), ("a decorator", decorators)):
        for expr in exprs:
            for inner in ast.walk(expr):
                if isinstance(inner, ast.Call):
                    findings.append(
                        f"runs code at import time in {where} ({ast.unparse(inner)[:60]})"
                    )
    return findings


def _dotted_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
            names.add(node.module)
        elif isinstance(node, ast.Attribute):
            parts: list[str] = []
            current: ast.AST = node
            while isinstance(current, ast.Attribute):
                parts.append(current.attr)
                current = current.value
            if isinstance(current, ast.Name):
                parts.append(current.id)
                names.add(".".join(reversed(parts)))
        elif isinstance(node, ast.Name):
            names.add(node.id)
    return names
