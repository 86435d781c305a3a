"""The unified diff shown to the user (CLI output, LSP preview): plain difflib, file-relative."""

from __future__ import annotations

import difflib


def unified_diff(before: str, after: str, label: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{label}",
            tofile=f"b/{label}",
        )
    )
