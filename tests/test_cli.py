"""The `selfdebug` command table: every subcommand is wired, and usage errors exit 2."""

import subprocess
import sys

from selfdebug.cli import COMMANDS, INTERNAL_COMMANDS, build_parser, main

EXPECTED = {
    "instrument",
    "strip",
    "test",
    "fix",
    "apply",
    "demo",
    "serve",
    "bench",
    "models",
    "doctor",
    "editor-path",
}


def test_every_command_of_the_table_is_registered():
    assert set(COMMANDS) == EXPECTED
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    assert set(subparsers.choices) == EXPECTED | {"model-worker"}
    assert set(INTERNAL_COMMANDS) == {"model-worker"}
    assert "model-worker" not in parser.format_help()  # internal: started by selfdebug itself


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().err


def test_console_entry_point_runs_as_module():
    done = subprocess.run(
        [sys.executable, "-m", "selfdebug", "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    assert done.stdout.startswith("selfdebug ")


def test_bench_search_names_a_bad_dataset_in_one_line(tmp_path, capsys):
    missing = tmp_path / "missing.jsonl"
    assert main(["bench", "search", "--dataset", str(missing), "--id", "quixbugs/gcd"]) == 2
    out = capsys.readouterr().out
    assert out.startswith("selfdebug bench search: cannot read dataset")
    assert "Traceback" not in out and len(out.strip().splitlines()) == 1
