"""Whether the environment that runs a project's tests can import what they need, said in one
line with the fix.

Why: a run that dies at import shows a traceback, and on a real repository the cause is nearly
always the environment, not the code: the project's own package does not import with the chosen
interpreter (it is not installed there, or a hatch-vcs/setuptools-scm `_version.py` that only an
install generates is missing), or a test dependency (freezegun) is missing, typically because
selfdebug's own Python ran the tests instead of the project's virtualenv. What the user needs is
which interpreter lacks what, and the command that fixes it (`pip install -e . pytest`).

A third cause follows from keeping our own pytest plugins out of the user's run: when
selfdebug's own Python runs the tests (the project has no environment of its own), a test that
needs a plugin (an `async def` test, the `mocker` fixture, an `asyncio_mode` option) fails, and
`plugin_hint` says which plugin and how to give the project its environment.

Nothing here starts a process: `environment_hint` reads the collection errors of a run,
`plugin_hint` its results, and `import_probe_problem` reads the output of `IMPORT_PROBE`, the
check `selfdebug doctor PROJECT` runs through the runner (sealed, in the shadow copy, like the
tests).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from pathlib import Path

from selfdebug.server.runner.results import CollectError, RunResult
from selfdebug.server.runner.shadow import is_skipped_dir

_MISSING = re.compile(r"No module named '([^']+)'")
_NOT_PACKAGES = frozenset({"tests", "test", "testing", "docs", "doc", "examples", "scripts"})
_GENERATED = ("_version", "version", "__version__", "_build_info")

# Run as `python -c IMPORT_PROBE NAME...` in the shadow copy: imports each name, prints
# "OK" or "FAIL <name> <exception type>: <first line>" for the first one that fails.
IMPORT_PROBE = (
    "import importlib, sys\n"
    "for name in sys.argv[1:]:\n"
    "    try:\n"
    "        importlib.import_module(name)\n"
    "    except BaseException as error:\n"
    "        text = (str(error).strip().splitlines() or [''])[0]\n"
    "        print('FAIL', name, type(error).__name__ + ': ' + text)\n"
    "        sys.exit(0)\n"
    "print('OK')\n"
)


def own_packages(root: Path) -> list[str]:
    """The project's top-level import names: packages (folders with `__init__.py`) at its root
    or under `src/`, and modules under `src/`; never its tests, docs or virtualenvs."""
    names: list[str] = []
    for base, modules in ((root, False), (root / "src", True)):
        try:
            entries = sorted(base.iterdir())
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if not name.isidentifier() or name in _NOT_PACKAGES:
                continue
            if entry.is_dir() and not is_skipped_dir(str(entry)):
                if (entry / "__init__.py").is_file():
                    names.append(name)
            elif modules and entry.suffix == ".py" and entry.stem.isidentifier():
                names.append(entry.stem)
    return list(dict.fromkeys(names))


def pip_install(interpreter: Path, *extra: str) -> str:
    """The command that installs the project (editable) and pytest into `interpreter`."""
    words = [str(interpreter), "-m", "pip", "install", "-e", ".", "pytest", *extra]
    return " ".join(shlex.quote(word) for word in words)


def _create_env(*extra: str) -> str:
    words = ["pip", "install", "-e", ".", "pytest", *extra]
    return f"python -m venv .venv && .venv/bin/{' '.join(shlex.quote(w) for w in words)}"


def own_package_problem(interpreter: Path, package: str, detail: str, *, ours: bool) -> str:
    """The one line for a project whose own package does not import with `interpreter`."""
    generated = any(detail.rstrip("'").endswith(f".{name}") for name in _GENERATED)
    why = "; a file its build generates at install time" if generated else ""
    if ours:
        return (
            f"the project's own package `{package}` does not import with selfdebug's own Python "
            f"{interpreter} ({detail}{why}): give the project its environment, "
            f"`{_create_env()}`, and trust the project (or select its Python in the editor)"
        )
    return (
        f"the project's own package `{package}` does not import with {interpreter} "
        f"({detail}{why}): install it there, `{pip_install(interpreter)}`"
    )


def dependency_problem(interpreter: Path, module: str, *, ours: bool) -> str:
    """The one line for tests that import a module the environment does not have."""
    if ours:
        return (
            f"the tests import `{module}`, which selfdebug's own Python {interpreter} does not "
            f"have: give the project its environment with its test dependencies, "
            f"`{_create_env(module)}`, and trust the project (or select its Python in the editor)"
        )
    return (
        f"the tests import `{module}`, which {interpreter} does not have: install the project's "
        f"test dependencies there, `{pip_install(interpreter, module)}`"
    )


def missing_module(error: CollectError) -> str | None:
    """The module a collection error says is missing (`No module named 'x.y'`), if any."""
    if error.exc_type not in ("ModuleNotFoundError", "ImportError", "CollectError"):
        return None
    found = _MISSING.search(error.message) or _MISSING.search(error.longrepr)
    return found.group(1) if found else None


def _in_project(root: Path, top: str) -> bool:
    """Whether a top-level name is a file or folder of the project (a path problem, not a
    missing install: `from helpers import x` run from the wrong folder)."""
    for base in (root, root / "src", root / "tests"):
        if (base / top).exists() or (base / f"{top}.py").exists():
            return True
    return False


def environment_hint(
    errors: Iterable[CollectError], *, root: Path, interpreter: Path, ours: bool
) -> str:
    """One line with the fix for the first collection error caused by the environment (the
    project's package or a test dependency missing); "" when none is."""
    packages = set(own_packages(root))
    for error in errors:
        module = missing_module(error)
        if module is None:
            continue
        top = module.split(".")[0]
        if top in packages:
            detail = f"No module named '{module}'"
            return own_package_problem(interpreter, top, detail, ours=ours)
        if not _in_project(root, top):
            return dependency_problem(interpreter, top, ours=ours)
    return ""


def import_probe_problem(output: str, *, interpreter: Path, root: Path, ours: bool) -> str:
    """What `IMPORT_PROBE` printed, as the one line to show ("" when everything imported)."""
    words = output.strip().splitlines()[-1:] or [""]
    parts = words[0].split(" ", 2)
    if parts[0] == "OK":
        return ""
    if parts[0] != "FAIL" or len(parts) < 3:
        shown = output.strip()[-300:] or "no output"
        return f"cannot check the project's imports with {interpreter}: {shown}"
    package, detail = parts[1], parts[2]
    found = _MISSING.search(detail)
    missing = found.group(1).split(".")[0] if found else ""
    if missing and missing not in own_packages(root):
        return dependency_problem(interpreter, missing, ours=ours)
    return own_package_problem(interpreter, package, detail, ours=ours)


# What a run without the plugin says: (pattern, what the tests needed, whether an unknown name
# is still a plugin's: a fixture or marker of no known plugin may just be a typo).
_PLUGIN_SIGNS = (
    (re.compile(r"Unknown config option: (\w+)"), "the configuration option `{}`", True),
    (re.compile(r"async def functions are not natively supported()"), "`async def` tests", True),
    (re.compile(r"fixture '(\w+)' not found"), "the fixture `{}`", False),
    (re.compile(r"'(\w+)' not found in `markers` configuration option"), "the marker `{}`", False),
)
KNOWN_PLUGINS = {
    "asyncio_mode": "pytest-asyncio",
    "asyncio_default_fixture_loop_scope": "pytest-asyncio",
    "asyncio": "pytest-asyncio",
    "`async def` tests": "pytest-asyncio",
    "mocker": "pytest-mock",
    "benchmark": "pytest-benchmark",
    "httpx_mock": "pytest-httpx",
    "freezer": "pytest-freezer",
    "requests_mock": "requests-mock",
    "snapshot": "syrupy",
    "datadir": "pytest-datadir",
    "django_db": "pytest-django",
    "DJANGO_SETTINGS_MODULE": "pytest-django",
    "env": "pytest-env",
    "trio": "pytest-trio",
    "anyio": "anyio",
}


def plugin_hint(result: RunResult, *, interpreter: Path) -> str:
    """With selfdebug's own Python (whose plugins are kept out of the run): one line naming what
    the tests needed from a pytest plugin, with the way to give the project its environment;
    "" when nothing points at a plugin."""
    texts = [result.error] + [t.longrepr or t.message for t in result.tests if not t.ok]
    for text in texts:
        for pattern, what, any_name in _PLUGIN_SIGNS:
            found = pattern.search(text or "")
            if not found:
                continue
            needed = what.format(found.group(1))
            plugin = KNOWN_PLUGINS.get(found.group(1) or needed)
            if plugin is None and not any_name:
                continue
            which = f"a pytest plugin ({plugin})" if plugin else "a pytest plugin"
            return (
                f"the tests need {which} for {needed}, which selfdebug's own Python {interpreter}"
                f" does not load into your run: give the project its environment, "
                f"`{_create_env(*([plugin] if plugin else []))}`, and trust the project (or "
                "select its Python in the editor)"
            )
    return ""
