"""The contract between inserted probe code and the standalone runtime helper module.

Everything selfdebug inserts names HELPER (a module name nobody else uses), and every whole line it
inserts ends with MARKER; that is how strip() and contains_probes() find inserted code again, even
inside a function a model rewrote.
"""

from __future__ import annotations

from pathlib import Path

HELPER = "_selfdebug_probe_rt_v1"
HELPER_BYTES = HELPER.encode()
MARKER = b"  # selfdebug-probe"
# How inserted code reaches the helper: a local name bound by an inserted `import` line, or, where
# no line can be inserted (one-line bodies), an inline __import__ call.
LOCAL_REF = HELPER
INLINE_REF = f'__import__("{HELPER}")'
# Closes a wrapped return value; a string constant so it also works without the import line.
RET_END = f'), "{HELPER}")'


def runtime_dir() -> Path:
    """The folder holding `_selfdebug_probe_rt_v1.py`; put it on PYTHONPATH of probed runs."""
    return Path(__file__).resolve().parent / "runtime"
