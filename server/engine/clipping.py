"""Text cut to fit a prompt: a value or a failure cut at its end with a marker (`clip`), a log
cut in its middle (`clip_middle`: how a run starts and how it ends matter most). Shared by what
the model is told (feedback.py, parametrized_case.py) and the prompt's fitting to the context
(model_calls/context_fit.py)."""

from __future__ import annotations


def clip(text: str, limit: int) -> str:
    """`text` stripped, and cut to `limit` characters with a marker when longer."""
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 15].rstrip() + " ...[truncated]"


def clip_middle(text: str, limit: int) -> str:
    """Head and tail of `text` within `limit` characters, with a marker where the middle was:
    how a run starts and how it ends (the return, the crash) are what a reader needs most."""
    if len(text) <= limit:
        return text
    lines = text.splitlines()
    head: list[str] = []
    tail: list[str] = []
    used = 0
    for index in range(len(lines)):
        line = lines[index // 2] if index % 2 == 0 else lines[-1 - index // 2]
        if used + len(line) + 1 > limit - 40:
            break
        (head if index % 2 == 0 else tail).append(line)
        used += len(line) + 1
    dropped = len(lines) - len(head) - len(tail)
    marker = f"...[{dropped} lines left out]"
    return "\n".join([*head, marker, *reversed(tail)])
