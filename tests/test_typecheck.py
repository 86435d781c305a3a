"""mypy sees our own packages' real types across modules (not `Any` through an import hook).

selfdebug/server, selfdebug/instrument and selfdebug/prompts are symlinks to the product's top-level
folders, so `selfdebug.server.x` is a file path mypy and editors can follow. This test injects
cross-module mistakes into a scratch copy and expects the project's own mypy command to catch each;
if the packages ever become `Any` again (an import hook, `ignore_missing_imports` for our modules),
it fails.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# (file, text to find, replacement, what mypy must say about that line)
INJECTED = [
    (
        "server/lsp/settings.py",
        "    return dataclasses.replace(\n",
        "    dataclasses.replace(request, mode=42, no_such_field=1)  # injected\n"
        "    return dataclasses.replace(\n",
        ("no_such_field", "mode"),
    ),
    (
        "server/lsp/run_tests.py",
        "return runner.run(plan.tests, overrides={file: source}, cancel=cancel)",
        "return runner.run(plan.tests, 'extra', overrides={file: source}, cancel=cancel)",
        ('Argument 2 to "run"',),
    ),
    (
        "selfdebug/commands/serve.py",
        "from selfdebug.server.lsp.server import create_server",
        "from selfdebug.server.lsp.server import create_server, no_such_name",
        ("no_such_name",),
    ),
]


def _scratch_copy(dest: Path) -> None:
    for name in ("selfdebug", "server", "instrument", "prompts"):
        shutil.copytree(
            ROOT / name,
            dest / name,
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
        )
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")


@pytest.mark.timeout(900)
def test_mypy_catches_cross_module_type_errors(tmp_path: Path) -> None:
    _scratch_copy(tmp_path)
    for rel, find, replace, _ in INJECTED:
        path = tmp_path / rel
        text = path.read_text()
        assert find in text, f"{rel} no longer contains {find!r}: update this test"
        path.write_text(text.replace(find, replace, 1))

    # The same command as scripts/test.sh, run where a contributor runs it (the repo root).
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / ".mypy_cache"), "selfdebug"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=850,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    for rel, _, _, expected in INJECTED:
        lines = [line for line in out.splitlines() if rel.split("/")[-1] in line]
        for word in expected:
            assert any(word in line for line in lines), f"mypy missed {word!r} in {rel}:\n{out}"
