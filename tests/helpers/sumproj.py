"""The engine tests' fixture project (`tests/fixtures/engine/sumproj`): its test ids, a private
copy per test module, the usual request on `sum_to`, and the text a scripted model was sent."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from helpers.requests import request_of
from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import DebugRequest

FIXTURE = Path(__file__).parent.parent / "fixtures" / "engine" / "sumproj"
THREE = "check_calc.py::test_sum_to_three"
ONE = "check_calc.py::test_sum_to_one"
ZERO = "check_calc.py::test_sum_to_zero"
NEGATIVE = "check_calc.py::test_sum_to_negative"
COUNTER = "check_calc.py::test_counter_add_all"
GOOD = (
    "def sum_to(n):\n    total = 0\n    for i in range(1, n + 1):\n        total += i\n"
    "    return total\n"
)


def copy_project(factory: pytest.TempPathFactory, name: str) -> Path:
    """A fresh copy of the project per test module (a session never writes it; tests may)."""
    root = factory.mktemp(name) / "sumproj"
    shutil.copytree(FIXTURE, root)
    return root


def make_request(project: Path, **changes: Any) -> DebugRequest:
    """`sum_to` in `ut` mode on the two failing tests; `changes` are other options by name
    (`request.with_options`)."""
    values: dict[str, Any] = dict(
        file=project / "calc.py",
        qualname="sum_to",
        project_root=project,
        tests=[THREE, ONE],
        mode="ut",
    )
    values.update(changes)
    return request_of(**values)


def prompt_text(backend: ScriptedBackend, index: int) -> str:
    """What the scripted model was sent in call `index`: the prompt, or the chat messages."""
    request = backend.requests[index]
    if request.prompt is not None:
        return request.prompt
    return "\n".join(m["content"] for m in request.messages or [])
