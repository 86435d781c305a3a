"""The standalone probe helper under pressure: threads, per-test caps, globals, env switches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from selfdebug.instrument import instrument_function, runtime_dir

MODULE = b"""\
import os
import threading

LIMIT = 3


def work(k):
    global LIMIT
    total = 0
    for i in range(30):
        total += i * k
    LIMIT = k
    return total
"""


def _run(tmp_path: Path, script: str, **env: str) -> tuple[str, list[dict]]:
    (tmp_path / "mod.py").write_bytes(instrument_function(MODULE, "work", "lines"))
    (tmp_path / "main.py").write_text(textwrap.dedent(script))
    log = tmp_path / "probes.jsonl"
    run_env = {k: v for k, v in os.environ.items() if not k.startswith("SELFDEBUG_PROBE")}
    run_env.update(PYTHONPATH=str(runtime_dir()), SELFDEBUG_PROBE_LOG=str(log), **env)
    done = subprocess.run(
        [sys.executable, "main.py"], cwd=tmp_path, env=run_env, capture_output=True, text=True,
        timeout=60, check=True,
    )  # fmt: skip
    return done.stdout, [json.loads(line) for line in log.read_text().splitlines()]


def test_threads_write_whole_lines_and_are_all_counted(tmp_path: Path) -> None:
    stdout, records = _run(
        tmp_path,
        """
        import threading
        import mod
        results = []
        def call(k):
            results.append(mod.work(k))
        threads = [threading.Thread(target=call, args=(k,)) for k in range(8)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(sorted(results))
        """,
        SELFDEBUG_PROBE_MAX_HITS="100000",
    )
    assert stdout == str(sorted(435 * k for k in range(8))) + "\n"
    loops = [r for r in records if r["kind"] == "loop"]
    assert len(loops) == 8 * 30
    returns = sorted(int(r["values"]["return"]) for r in records if r["kind"] == "return")
    assert returns == sorted(435 * k for k in range(8))


def test_caps_are_per_test_and_globals_are_read(tmp_path: Path) -> None:
    _, records = _run(
        tmp_path,
        """
        import os
        import mod
        for name in ("t::one", "t::two"):
            os.environ["SELFDEBUG_PROBE_TEST"] = name
            mod.work(2)
        """,
        SELFDEBUG_PROBE_MAX_HITS="10",
    )
    for name in ("t::one", "t::two"):
        mine = [r for r in records if r["test"] == name]
        assert len([r for r in mine if r.get("kind") == "loop"]) == 10
        markers = [r for r in mine if r.get("truncated")]
        assert {m["reason"] for m in markers} == {"max_hits"} and len(markers) == 2
        limit = [r["values"]["LIMIT"] for r in mine if "LIMIT" in r.get("values", {})]
        assert limit == ["2"]  # the `global LIMIT` assignment, read from module globals


def test_an_empty_log_variable_disables_probes(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_bytes(instrument_function(MODULE, "work", "lines"))
    (tmp_path / "main.py").write_text(
        "import mod, _selfdebug_probe_rt_v1 as rt\n"
        "print(mod.work(1), rt.enabled, mod.work.__wrapped__ if hasattr(mod.work, '__wrapped__')"
        " else 'not wrapped')\n"
    )
    run_env = {k: v for k, v in os.environ.items() if not k.startswith("SELFDEBUG_PROBE")}
    run_env.update(PYTHONPATH=str(runtime_dir()), SELFDEBUG_PROBE_LOG="")
    done = subprocess.run(
        [sys.executable, "main.py"], cwd=tmp_path, env=run_env, capture_output=True, text=True,
        timeout=60, check=True,
    )  # fmt: skip
    assert done.stdout == "435 False not wrapped\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["main.py", "mod.py"]


def test_private_names_and_a_variable_called_branch(tmp_path: Path) -> None:
    source = (
        b"class A:\n    def f(self, branch):\n        __secret = 5\n        if branch:\n"
        b"            __secret += 1\n        return __secret\n"
    )
    (tmp_path / "priv.py").write_bytes(instrument_function(source, "A.f", "lines"))
    (tmp_path / "main.py").write_text("import priv\nprint(priv.A().f(True))\n")
    log = tmp_path / "probes.jsonl"
    run_env = {k: v for k, v in os.environ.items() if not k.startswith("SELFDEBUG_PROBE")}
    run_env.update(PYTHONPATH=str(runtime_dir()), SELFDEBUG_PROBE_LOG=str(log))
    done = subprocess.run(
        [sys.executable, "main.py"], cwd=tmp_path, env=run_env, capture_output=True, text=True,
        timeout=60, check=True,
    )  # fmt: skip
    assert done.stdout == "6\n"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["values"] for r in records if r["kind"] == "assign"] == [
        {"__secret": "5"}, {"__secret": "6"}
    ]  # fmt: skip
    branch = next(r for r in records if r["kind"] == "branch")
    assert branch["values"] == {"<branch>": "if", "branch": "True"}
