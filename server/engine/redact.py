"""Scrub secrets from text that goes to a model or into a transcript.

Why: a test (or a model candidate) can read a credential and raise it in an exception message;
that message becomes feedback in the next prompt, which may go to a remote endpoint, and is
kept in the transcript on disk. The sandbox hides the usual credential files; this is the second
line: known secret shapes (private-key blocks, API keys of the common providers, tokens, AWS
keys, `password = ...` assignments) and the values of the secret-looking variables in our own
environment are replaced by `[REDACTED]` before any prompt is built or any record written.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any

REDACTED = "[REDACTED]"

_PATTERNS = [
    # PEM blocks: private keys of any kind (also a block cut off by truncation).
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*-----|\Z)",
    r"\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_\-]{20,}",  # OpenAI, Anthropic, Stripe
    r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b",  # AWS access key ids
    r"\bgh[pousr]_[A-Za-z0-9]{30,}\b",  # GitHub tokens
    r"\bgithub_pat_[A-Za-z0-9_]{40,}\b",
    r"\bglpat-[A-Za-z0-9_\-]{20,}\b",  # GitLab
    r"\bxox[abposr]-[A-Za-z0-9\-]{10,}\b",  # Slack
    r"\bAIza[0-9A-Za-z_\-]{35}\b",  # Google API keys
    r"\bhf_[A-Za-z0-9]{30,}\b",  # Hugging Face
    r"\bnpm_[A-Za-z0-9]{36}\b",
    r"\bpypi-[A-Za-z0-9_\-]{50,}\b",
    r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",  # JWTs
]
# `aws_secret_access_key = ...`, `"password": "..."`, `API_KEY=...`: keep the name, hide the value.
_ASSIGNMENT = re.compile(
    r"(?i)((?:api[_-]?key|secret(?:[_-]?access)?[_-]?key|secret|token|passw(?:or)?d|passwd|"
    r"auth|credentials?|private[_-]?key)[\"']?\s*[:=]\s*[\"']?)([^\s\"',;]{8,})"
)
_SHAPES = re.compile("|".join(f"(?:{p})" for p in _PATTERNS))
_SECRET_VARIABLE = re.compile(r"(?i)(KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH)")


@functools.lru_cache(maxsize=1)
def _environment_secrets() -> tuple[str, ...]:
    """Values of our own secret-looking variables (OPENAI_API_KEY ...), longest first."""
    values = {
        value
        for name, value in os.environ.items()
        if _SECRET_VARIABLE.search(name) and len(value) >= 8
    }
    return tuple(sorted(values, key=len, reverse=True))


def scrub(text: str) -> str:
    """`text` with every secret it visibly holds replaced by [REDACTED]."""
    if not text:
        return text
    for value in _environment_secrets():
        if value in text:
            text = text.replace(value, REDACTED)
    text = _SHAPES.sub(REDACTED, text)
    return _ASSIGNMENT.sub(lambda m: m.group(1) + REDACTED, text)


def scrub_value(value: Any) -> Any:
    """Strings inside lists, tuples and dicts scrubbed (a transcript record, chat messages)."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {key: scrub_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(scrub_value(item) for item in value)
    return value
