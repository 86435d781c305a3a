"""Instrumented code runs in a real interpreter: same stdout and results, and a useful probe log.

Each run is a subprocess with PYTHONPATH=runtime_dir() (our package is not importable there
on purpose: only the standalone helper is) and SELFDEBUG_PROBE_LOG pointing at a JSONL file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

from selfdebug.instrument import (
    LEVELS,
    instrument_function,
    line_map,
    list_functions,
    runtime_dir,
    strip,
    validate_model_prints,
)

PROGRAMS = Path(__file__).parent / "fixtures" / "instrument" / "programs"
STATS = (PROGRAMS / "stats.py").read_bytes()
TEST_ID = "tests/test_stats.py::test_mean"


def _line_of(text: str) -> int:
    """1-based line of the first line of stats.py containing `text`."""
    for number, line in enumerate(STATS.decode().splitlines(), 1):
        if text in line:
            return number
    raise AssertionError(text)


def _run(
    workdir: Path, stats: bytes, *args: str, log: bool = True, env: dict[str, str] | None = None,
    timeout: float = 60,
) -> tuple[subprocess.CompletedProcess[str], list[dict]]:  # fmt: skip
    workdir.mkdir(exist_ok=True)
    shutil.copy(PROGRAMS / "driver.py", workdir / "driver.py")
    (workdir / "stats.py").write_bytes(stats)
    run_env = {k: v for k, v in os.environ.items() if not k.startswith("SELFDEBUG_PROBE")}
    run_env["PYTHONPATH"] = str(runtime_dir())
    run_env["PYTHONDONTWRITEBYTECODE"] = "1"
    log_path = workdir / "probes.jsonl"
    if log:
        run_env["SELFDEBUG_PROBE_LOG"] = str(log_path)
        run_env["SELFDEBUG_PROBE_TEST"] = TEST_ID
    run_env.update(env or {})
    done = subprocess.run(
        [sys.executable, "-S", "driver.py", *args],
        cwd=workdir, env=run_env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    records = [json.loads(line) for line in log_path.read_text().splitlines()] if log else []
    return done, records


@pytest.fixture(scope="module")
def original_stdout(tmp_path_factory: pytest.TempPathFactory) -> str:
    done, _ = _run(tmp_path_factory.mktemp("original"), STATS, log=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _functions() -> list[str]:
    not_called = {"spin", "Hostile.__repr__"}
    return [loc.qualname for loc in list_functions(STATS) if loc.qualname not in not_called]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("qualname", _functions())
def test_same_stdout_with_probes(tmp_path: Path, original_stdout: str, qualname: str, level: str):
    instrumented = instrument_function(STATS, qualname, level)
    done, records = _run(tmp_path, instrumented)
    assert done.returncode == 0, done.stderr
    assert done.stdout == original_stdout
    assert records, "the probes wrote nothing"
    assert all(record["test"] == TEST_ID for record in records)
    assert {"entry", "return"} <= {r["kind"] for r in records}


def test_loop_values_and_return_values_are_logged(tmp_path: Path) -> None:
    done, records = _run(tmp_path, instrument_function(STATS, "mean", "lines"))
    assert done.returncode == 0, done.stderr
    loops = [r["values"]["value"] for r in records if r["kind"] == "loop"]
    assert loops == ["1", "2", "3", "4"]
    assert {r["line"] for r in records if r["kind"] == "loop"} == {_line_of("for value in values")}
    totals = [r["values"]["total"] for r in records if r["kind"] == "assign"]
    assert totals == ["0", "1", "3", "6", "10"]
    returns = [r["values"]["return"] for r in records if r["kind"] == "return"]
    assert returns == ["2.5", "0.0"]
    entries = [r["values"]["values"] for r in records if r["kind"] == "entry"]
    assert entries == ["[1, 2, 3, 4]", "[]"]
    branches = [r for r in records if r["kind"] == "branch"]
    assert [b["line"] for b in branches] == [_line_of("if not values")]
    assert branches[0]["values"] == {"values": "[]", "branch": "if"}


def test_branch_taken_generator_and_async(tmp_path: Path) -> None:
    _, records = _run(tmp_path / "a", instrument_function(STATS, "classify", "blocks"))
    taken = [(r["values"]["branch"], r["values"]["n"]) for r in records if r["kind"] == "branch"]
    assert taken == [("if", "-2"), ("elif", "0"), ("else", "5")]
    _, records = _run(tmp_path / "b", instrument_function(STATS, "running_totals", "lines"))
    assert [r["values"]["total"] for r in records if r["kind"] == "assign"][1:] == ["1", "3", "6"]
    _, records = _run(tmp_path / "c", instrument_function(STATS, "gather_squares", "lines"))
    assert [r["values"]["return"] for r in records if r["kind"] == "return"] == ["[0, 1, 4, 9]"]
    _, records = _run(tmp_path / "d", instrument_function(STATS, "Shape.describe", "blocks"))
    returns = [r["values"]["return"] for r in records if r["kind"] == "return"]
    assert returns == ["'triangle'", "'square'", "'polygon(7)'", "'unknown'"]
    _, records = _run(tmp_path / "e", instrument_function(STATS, "parse_pairs", "lines"))
    walrus = [r["values"]["sep"] for r in records if r["kind"] == "branch"]
    assert walrus == ["-1"]  # the `continue` branch, taken for the line without "="


def test_exception_exit_is_logged_with_original_line_and_locals(tmp_path: Path) -> None:
    done, records = _run(tmp_path, instrument_function(STATS, "parse_pairs", "lines"))
    assert done.returncode == 0
    raised = [r for r in records if r["kind"] == "raise"]
    assert len(raised) == 1
    assert raised[0]["line"] == _line_of("pairs[key] = int(value)")
    assert "ValueError" in raised[0]["values"]["exception"]
    assert raised[0]["values"]["value"] == "'x'"


def test_a_failing_repr_does_not_break_the_program(tmp_path: Path, original_stdout: str) -> None:
    done, records = _run(tmp_path, instrument_function(STATS, "uses_hostile", "lines"))
    assert done.returncode == 0 and done.stdout == original_stdout
    values = [r["values"] for r in records if r["kind"] == "assign"]
    assert len(values) == 1 and values[0]["thing"].startswith("<Hostile instance at 0x")


def test_without_a_log_probes_do_nothing(tmp_path: Path, original_stdout: str) -> None:
    done, _ = _run(tmp_path, instrument_function(STATS, "mean", "lines"), log=False)
    assert done.returncode == 0 and done.stdout == original_stdout
    assert not (tmp_path / "probes.jsonl").exists()


def _run_spin(workdir: Path, env: dict[str, str]) -> tuple[list[dict], int]:
    instrumented = instrument_function(STATS, "spin", "lines")
    with pytest.raises(subprocess.TimeoutExpired):
        _run(workdir, instrumented, "spin", env=env, timeout=2)
    log = workdir / "probes.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()], log.stat().st_size


def test_runaway_loop_is_capped_per_probe(tmp_path: Path) -> None:
    records, size = _run_spin(tmp_path, {})
    assert size < 64 * 1024
    loop = [r for r in records if r.get("kind") == "loop"]
    assert len(loop) == 50  # SELFDEBUG_PROBE_MAX_HITS default
    assert [r["values"]["count"] for r in loop[:3]] == ["0", "1", "2"]
    markers = [r for r in records if r.get("truncated")]
    assert {m["reason"] for m in markers} == {"max_hits"}
    assert {m["line"] for m in markers} == {
        _line_of("while count != limit"),
        _line_of("count += 1"),
    }


def test_runaway_loop_is_capped_in_bytes(tmp_path: Path) -> None:
    env = {"SELFDEBUG_PROBE_MAX_HITS": "100000000", "SELFDEBUG_PROBE_MAX_BYTES": "20000"}
    records, size = _run_spin(tmp_path, env)
    assert 19000 < size <= 20000 + 200
    assert records[-1] == {"truncated": True, "reason": "max_bytes", "test": TEST_ID}
    assert sum(1 for r in records if r.get("truncated")) == 1


def test_model_prints_go_to_the_log_not_stdout(tmp_path: Path, original_stdout: str) -> None:
    start = STATS.index(b"def classify")
    end = STATS.index(b"\n\n\n", start) + 1
    function = STATS[start:end].decode()
    model = function.replace(
        '        label = "zero"\n',
        '        label = "zero"\n        print("zero branch, n =", n)\n',
    ).replace("    return label\n", '    print(f"label={label}")\n    return label\n')
    first_line = STATS[:start].count(b"\n") + 1
    checked = validate_model_prints(function, model, first_line=first_line)
    assert checked.ok, checked.reason
    assert checked.added == 2
    probed = STATS[:start] + checked.instrumented.encode() + STATS[end:]
    done, records = _run(tmp_path, probed)
    assert done.returncode == 0, done.stderr
    assert done.stdout == original_stdout  # the model's prints did not reach stdout
    printed = [(r["line"], r["text"]) for r in records if r["kind"] == "print"]
    # each print reports the original line it follows
    zero, last = _line_of('label = "zero"'), _line_of('label = "positive"')
    assert printed == [
        (last, "label=negative\n"), (zero, "zero branch, n = 0\n"), (last, "label=zero\n"),
        (last, "label=positive\n"),
    ]  # fmt: skip
    # strip() undoes exactly what was inserted: the model's own text comes back
    assert strip(probed) == STATS[:start] + model.encode() + STATS[end:]


def test_line_map_maps_traceback_lines_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SELFDEBUG_PROBE_LOG", raising=False)
    monkeypatch.syspath_prepend(str(runtime_dir()))
    instrumented = instrument_function(STATS, "parse_pairs", "lines")
    namespace: dict = {"__name__": "probed_stats"}
    exec(compile(instrumented, "probed_stats.py", "exec"), namespace)
    assert namespace["parse_pairs"]("a=1") == {"a": 1}
    with pytest.raises(ValueError) as caught:
        namespace["parse_pairs"]("a = x")
    frames = [f for f in traceback.extract_tb(caught.value.__traceback__)]
    line = next(f.lineno for f in frames if f.filename == "probed_stats.py")
    assert line is not None and line != _line_of("pairs[key] = int(value)")
    assert line_map(instrumented)[line - 1] == _line_of("pairs[key] = int(value)")
