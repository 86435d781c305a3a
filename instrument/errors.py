"""Errors of selfdebug.instrument: each one says what is wrong and where, never a raw traceback."""

from __future__ import annotations


class InstrumentError(Exception):
    """Base class: the source cannot be located in, instrumented or validated as asked."""


class SourceSyntaxError(InstrumentError):
    """The source does not parse; `line` is 1-based, `column` a 0-based byte column."""

    def __init__(self, message: str, line: int, column: int = 0) -> None:
        super().__init__(f"syntax error at line {line}: {message}")
        self.line = line
        self.column = column


class FunctionNotFound(InstrumentError):
    """No function with that qualified name (or at that position)."""

    def __init__(self, qualname: str, known: list[str] | None = None) -> None:
        hint = ""
        if known:
            hint = (
                " (functions here: "
                + ", ".join(known[:12])
                + (", ..." if len(known) > 12 else "")
                + ")"
            )
        super().__init__(f"no function named {qualname!r}{hint}")
        self.qualname = qualname


class AlreadyInstrumented(InstrumentError):
    """The source already contains selfdebug probes; strip it first so strip() stays exact."""
