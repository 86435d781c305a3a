"""The VS Code extension's unit tests (node's test runner on the esbuild bundle), run by pytest.

They cover the settings mapping onto the server's camelCase settings, `${workspaceFolder}`
expansion, interpreter resolution, the launch check's messages, the status-bar phases, the report
and transcript rendering, and the manifest's contributed settings. `npm test` type-checks first.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

CLIENT = Path(__file__).resolve().parent.parent / "client-vscode"


def npm() -> str:
    found = shutil.which("npm")
    assert found, "npm is needed for the VS Code extension's tests (apt-get install nodejs npm)"
    return found


def test_extension_unit_tests_pass() -> None:
    if not (CLIENT / "node_modules").is_dir():
        subprocess.run(
            [npm(), "ci", "--no-audit", "--no-fund"], cwd=CLIENT, check=True, timeout=600
        )
    # SELFDEBUG_PYTHON: one test checks that this venv's interpreter passes the launch check.
    env = {**os.environ, "SELFDEBUG_PYTHON": sys.executable}
    done = subprocess.run(
        [npm(), "test"], cwd=CLIENT, env=env, capture_output=True, text=True, timeout=600
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-6000:]
    passed = re.search(r"^# pass (\d+)$", output, re.MULTILINE)
    failed = re.search(r"^# fail (\d+)$", output, re.MULTILINE)
    skipped = re.search(r"^# skipped (\d+)$", output, re.MULTILINE)
    assert passed and failed and skipped, output[-3000:]
    assert int(failed.group(1)) == 0
    assert int(skipped.group(1)) == 0, "every unit test ran (SELFDEBUG_PYTHON was set)"
    assert int(passed.group(1)) >= 46  # incl. the fix proposal and the Accept/Discard manifest
