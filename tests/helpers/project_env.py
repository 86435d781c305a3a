"""Real virtualenvs for fixture projects, made offline.

`make_venv` runs `python -m venv` (pip from the standard library's bundled wheel) and installs
pytest into it by copying the installed files of pytest and its requirements from the
environment running the suite (pure-Python distributions, the same Python version), so no index
or network is needed. `build_wheel` makes a wheel of a local fixture package (plain or editable)
with the standard library, since no build backend may be at hand offline (setuptools without
`wheel` cannot build one), and `pip_install` installs it with `pip install --no-index --no-deps`.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest needs tomli before 3.11
    import tomli as tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def site_packages(venv: Path) -> Path:
    """The venv's purelib folder (same layout as ours: same Python)."""
    relative = Path(sysconfig.get_path("purelib")).relative_to(sys.prefix)
    return venv / relative


def copy_distributions(names: list[str], target: Path) -> list[str]:
    """Install `names` and what they require (markers evaluated here) into `target` by copying
    the files their RECORD lists from our environment; returns the distributions copied."""
    done: list[str] = []
    todo = list(names)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in done:
            continue
        done.append(name)
        dist = importlib.metadata.distribution(name)
        for file in dist.files or []:
            if ".." in file.parts or "__pycache__" in file.parts:
                continue  # scripts in bin/ and bytecode are not needed
            source = Path(str(dist.locate_file(file)))
            if source.is_file():
                destination = target / file
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, destination)
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return done


def make_venv(venv: Path, *, with_pytest: bool = True, with_pip: bool = True) -> Path:
    """A real virtualenv at `venv` (pytest copied in when asked); returns its python."""
    command = [sys.executable, "-m", "venv", str(venv)]
    if not with_pip:
        command.append("--without-pip")
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    python = venv / "bin" / "python"
    if with_pytest:
        copy_distributions(["pytest"], site_packages(venv))
        # Bytecode, as pip writes it at install: the runs set PYTHONDONTWRITEBYTECODE.
        compile_all = [str(python), "-m", "compileall", "-q", str(site_packages(venv))]
        subprocess.run(compile_all, check=True, capture_output=True, timeout=300)
    return python


def build_wheel(folder: Path, out: Path, *, editable: bool = False) -> Path:
    """A pure-Python wheel of a fixture package (name, version and entry points from its
    pyproject.toml; its packages and modules at the top or under `src/`). `editable`: the
    wheel holds a `.pth` naming the source folder instead of the files, which is what
    hatchling, flit and setuptools (for a src layout) install for `pip install -e .`."""
    meta = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    name, version = meta["name"], meta["version"]
    source = folder / "src" if (folder / "src").is_dir() else folder
    files: dict[str, bytes] = {}
    if editable:
        files[f"__editable__.{name}.pth"] = f"{source}\n".encode()
    else:
        for path in sorted(source.rglob("*.py")):
            relative = path.relative_to(source)
            top = relative.parts[0]
            if top in ("tests", "setup.py", "conftest.py") or "__pycache__" in relative.parts:
                continue
            files[relative.as_posix()] = path.read_bytes()
    info = f"{name.replace('-', '_')}-{version}.dist-info"
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
    )
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: selfdebug-tests\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n"
    )
    groups = meta.get("entry-points", {})
    if groups:
        lines = []
        for group, entries in groups.items():
            lines.append(f"[{group}]")
            lines += [f"{key} = {value}" for key, value in entries.items()]
        files[f"{info}/entry_points.txt"] = ("\n".join(lines) + "\n").encode()
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    out.mkdir(parents=True, exist_ok=True)
    wheel = out / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return wheel


def pip_install(python: Path, *wheels: Path) -> None:
    """`pip install --no-index --no-deps WHEELS` with the venv's own pip."""
    command = [str(python), "-m", "pip", "install", "--no-index", "--no-deps"]
    command += ["--disable-pip-version-check", "-q", *map(str, wheels)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
