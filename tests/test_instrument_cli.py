"""`selfdebug instrument` and `selfdebug strip`: exact bytes through a pipe, clear exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SOURCE = "# -*- coding: latin-1 -*-\r\ndef f(x):\r\n    s = 'café'\r\n    return s + x\r\n".encode(
    "latin-1"
)


def _selfdebug(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "selfdebug", *args],
        input=stdin, capture_output=True, timeout=60, check=False,
    )  # fmt: skip


def test_instrument_then_strip_reproduces_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mod.py"
    path.write_bytes(SOURCE)
    for level in ("entry-return", "blocks", "lines"):
        instrumented = _selfdebug("instrument", f"{path}::f", "--level", level)
        assert instrumented.returncode == 0, instrumented.stderr
        assert b"_selfdebug_probe_rt_v1" in instrumented.stdout
        assert instrumented.stdout.count(b"\n") == instrumented.stdout.count(b"\r\n")
        stripped = _selfdebug("strip", stdin=instrumented.stdout)
        assert stripped.returncode == 0 and stripped.stdout == SOURCE
    probed = tmp_path / "probed.py"
    probed.write_bytes(_selfdebug("instrument", f"{path}::f").stdout)
    assert _selfdebug("strip", str(probed)).stdout == SOURCE
    assert _selfdebug("strip", "-", stdin=SOURCE).stdout == SOURCE  # nothing to strip


def test_bad_input_exits_2_with_a_message(tmp_path: Path) -> None:
    path = tmp_path / "mod.py"
    path.write_bytes(SOURCE)
    missing_function = _selfdebug("instrument", f"{path}::g")
    assert missing_function.returncode == 2
    assert b"no function named 'g'" in missing_function.stderr
    assert b"Traceback" not in missing_function.stderr
    missing_file = _selfdebug("instrument", f"{tmp_path}/nope.py::f")
    assert missing_file.returncode == 2 and b"cannot read" in missing_file.stderr
    no_separator = _selfdebug("instrument", str(path))
    assert no_separator.returncode == 2 and b"FILE::FUNC" in no_separator.stderr
    broken = tmp_path / "broken.py"
    broken.write_bytes(b"def f(:\n    pass\n")
    syntax = _selfdebug("instrument", f"{broken}::f")
    assert syntax.returncode == 2 and b"syntax error at line 1" in syntax.stderr
    assert _selfdebug("strip", f"{tmp_path}/nope.py").returncode == 2


def test_level_choices_are_the_instrumenters_levels() -> None:
    """The CLI spells the levels out (its modules must import cheaply): they must not drift."""
    import argparse

    from selfdebug.bench import instrument as bench_instrument
    from selfdebug.commands import instrument as instrument_command
    from selfdebug.instrument import LEVELS

    for module in (instrument_command, bench_instrument):
        parser = argparse.ArgumentParser()
        module.add_arguments(parser)
        level = next(action for action in parser._actions if action.dest == "level")
        assert tuple(level.choices or ()) == LEVELS
