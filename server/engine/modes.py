"""The debugging modes: which prompt step fixes the code, whether the turn first gathers a real
log (the model's own prints, or automatic probes), and how `auto` picks a mode."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

from selfdebug.server.engine.types import Mode


@dataclass(frozen=True)
class ModeSpec:
    name: str
    fix_step: str  # prompt template of the fixing call
    log: Literal["", "prints", "probes"] = ""  # gather a real log of the failing test first
    shows_failures: bool = True  # the prompt includes the failing tests' real results
    loops: bool = True  # False: one single-shot repair (the benchmark baseline)


MODE_SPECS: dict[str, ModeSpec] = {
    "none": ModeSpec("none", "fix_ut", loops=False),
    "simple": ModeSpec("simple", "fix_simple", shows_failures=False),
    "ut": ModeSpec("ut", "fix_ut"),
    "explain": ModeSpec("explain", "fix_explain"),
    "trace": ModeSpec("trace", "fix_trace"),
    "print": ModeSpec("print", "fix_log", log="prints"),
    "probe": ModeSpec("probe", "fix_log", log="probes"),
}


def resolve_mode(requested: str, *, has_tests: bool, can_probe: bool) -> tuple[Mode, str]:
    """The mode to run and, when it differs from the request, why (shown in the transcript).

    Without tests there are no failures to show or run, so every mode that needs them falls back
    to `explain` (the model can still reason about the code on its own)."""
    if requested not in MODE_SPECS and requested != "auto":
        raise ValueError(f"unknown mode {requested!r}")
    mode = cast(Mode, requested)  # checked just above
    if not has_tests:
        if requested in ("auto", "ut", "trace", "print", "probe"):
            return "explain", "no tests: explain the code instead"
        return mode, ""
    if requested == "auto":
        if can_probe:
            return "probe", "auto: tests fail and probes can be inserted"
        return "explain", "auto: probes cannot be inserted in this function"
    if requested == "probe" and not can_probe:
        return "explain", "probes cannot be inserted in this function"
    return mode, ""
