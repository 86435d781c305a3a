"""`[tool.selfdebug]` in the project's pyproject.toml (issue 52): read and checked once
(server/lsp/project_settings.py), the keys a cloned repository must not set refused; the CLI takes
it as its flags' defaults (a flag given wins), the language server as its lowest layer (the
editor's settings win)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from test_lsp_e2e import start  # noqa: F401  (the fixture: a real server + client)

from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.lsp.project_settings import read_project_settings

BUGGY = (
    "def sum_to(n):\n    total = 0\n    for i in range(1, n):\n        total += i\n"
    "    return total\n"
)
TESTS = "from calc import sum_to\n\n\n" + "".join(
    f"def test_{n}():\n    assert sum_to({n}) == {n * (n + 1) // 2}\n\n\n" for n in (0, 1, 3)
)


def project(tmp_path: Path, table: str) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "proj"\nversion = "0"\n\n[tool.selfdebug]\n{table}'
    )
    (root / "calc.py").write_text(BUGGY)
    (root / "test_calc.py").write_text(TESTS)
    return root


def test_the_file_is_checked_and_what_a_repository_must_not_set_is_refused(tmp_path: Path):
    root = project(
        tmp_path,
        'mode = "search"\nmax-turns = 3\ntest_timeout = 4\nsamples = "two"\n'
        'allow-remote = true\ntrusted-workspace = true\npython-path = "/bin/evil"\n'
        'model-path = "weights/evil.gguf"\ncolour = "red"\n',
    )
    found = read_project_settings(root)
    assert found.values == {"mode": "search", "max_turns": 3, "test_timeout": 4.0}
    assert found.layer == {"mode": "search", "maxTurns": 3, "testTimeout": 4.0}
    said = "\n".join(found.problems)
    for key in ("allow-remote", "trusted-workspace", "python-path", "model-path", "colour"):
        assert f"] {key}: " in said, said
    assert "samples" in said  # a wrong type: reported, the default kept
    assert read_project_settings(tmp_path).values == {}  # no pyproject.toml: nothing


def selfdebug(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SELFDEBUG_SCRIPTED")}
    return subprocess.run(
        [sys.executable, "-m", "selfdebug", *args],
        cwd=cwd, env=environ, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_the_cli_takes_the_file_as_its_defaults_and_a_flag_wins(tmp_path: Path):
    root = project(tmp_path, 'mode = "search"\nallow-remote = true\n')
    done = selfdebug("fix", "calc.py::sum_to", cwd=root)  # no --mode: the file's
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mode search" in done.stderr and "Fix found." in done.stdout
    assert "pyproject.toml: [tool.selfdebug] allow-remote: a project cannot set it" in done.stderr

    (root / "pyproject.toml").write_text('[project]\nname = "p"\n\n[tool.selfdebug]\nmode = "ut"\n')
    done = selfdebug("fix", "calc.py::sum_to", "--mode", "search", cwd=root)  # the flag wins
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mode search" in done.stderr


async def test_the_server_takes_the_file_below_the_editors_settings(start):  # noqa: F811
    ws = await start()  # the fixture project; its pyproject.toml gets a [tool.selfdebug] table
    pyproject = ws.project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text() + '\n[tool.selfdebug]\nmode = "search"\nallow-remote = true\n'
    )
    uri = ws.open("calc.py")
    result = await asyncio.wait_for(
        ws.command("selfdebug.proposeFix", {"uri": uri, "qualname": "mean"}), 120
    )
    assert result["success"], result
    first = read_transcript(Path(result["transcriptPath"]))[0]
    assert first["event"] == "session_start"
    assert first["requested_mode"] == "search"  # the file's: the editor sets no mode
    told = [m.message for m in ws.client.messages]
    assert any("allow-remote: a project cannot set it" in m for m in told), told
