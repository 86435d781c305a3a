"""Runner overhead over bare pytest: `selfdebug bench runner [--json]`.

Runs one test of a generated project (a few real modules plus filler up to `--files` files)
with bare `python -m pytest <nodeid>` and with the runner, interleaved on this machine in one
run, and prints the medians and their ratios for a cold runner (new shadow copy, interpreter
check) and a warm one (shadow copy reused and re-synced). Also times the shadow copy alone:
a cold copy, a warm re-sync with nothing changed, and one after editing ten files.
Goal: warm ratio <= 1.2.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

WARM_RATIO_GOAL = 1.2
NODEID = "tests/test_shapes.py::test_area"

_MODULE = '''"""Shapes."""


def area(width, height):
    return width * height


def perimeter(width, height):
    return 2 * (width + height)
'''
_TEST = """from shapes.core import area, perimeter


def test_area():
    assert area(2, 3) == 6


def test_perimeter():
    assert perimeter(2, 3) == 10
"""


def make_project(root: Path, files: int) -> Path:
    """A small package with tests plus filler modules and data files, `files` files in all."""
    (root / "shapes").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "shapes"\nversion = "0"\n')
    (root / "shapes" / "__init__.py").write_text("")
    (root / "shapes" / "core.py").write_text(_MODULE)
    (root / "tests" / "test_shapes.py").write_text(_TEST)
    filler = max(0, files - 4)
    for index in range(filler):
        package = root / "shapes" / f"part{index // 50:03d}"
        package.mkdir(exist_ok=True)
        body = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(20))
        (package / f"mod{index % 50:02d}.py").write_text(body)
    # things the shadow copy must skip
    (root / ".git" / "objects").mkdir(parents=True)
    (root / ".git" / "objects" / "pack").write_bytes(b"\0" * 4096)
    return root


def _bare_pytest(interpreter: str, project: Path) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    started = time.perf_counter()
    completed = subprocess.run(
        [interpreter, "-m", "pytest", "-p", "no:cacheprovider", "-q", NODEID],
        cwd=project,
        env=env,
        capture_output=True,
        timeout=120,
    )
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        raise RuntimeError(f"bare pytest failed: {completed.stdout.decode()[-500:]}")
    return elapsed


def measure(repeats: int = 7, files: int = 2000, isolation: str = "auto") -> dict[str, Any]:
    """Medians of bare pytest vs the runner (cold and warm) and shadow-copy timings."""
    from selfdebug.server.runner import ProjectRunner, RunnerSettings, ShadowCopy
    from selfdebug.server.runner.project import forget_interpreters

    interpreter = sys.executable
    settings = RunnerSettings(interpreter=interpreter, isolation=isolation)  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory(prefix="selfdebug-bench-runner-") as tmp:
        project = make_project(Path(tmp) / "shapes", files)
        # The shadow copy alone.
        shadow = ShadowCopy(project)
        cold_copy = shadow.sync()
        warm_sync = shadow.sync()
        for path in sorted((project / "shapes").rglob("mod0*.py"))[:10]:
            path.write_text(path.read_text() + "\n# edited\n")
        edited_sync = shadow.sync()
        shadow.close()

        bare: list[float] = []
        cold: list[float] = []
        warm: list[float] = []
        _bare_pytest(interpreter, project)  # warm the OS caches for everyone
        with ProjectRunner(project, settings) as warm_runner:
            isolation_used = warm_runner.isolation
            first = warm_runner.run([NODEID])
            if not first.all_passed:
                raise RuntimeError(f"runner failed on the bench project: {first.error}")
            for _ in range(repeats):
                bare.append(_bare_pytest(interpreter, project))
                started = time.perf_counter()
                result = warm_runner.run([NODEID])
                warm.append(time.perf_counter() - started)
                assert result.all_passed, result.error
                forget_interpreters()  # a cold runner checks its interpreter again
                started = time.perf_counter()
                cold_runner = ProjectRunner(project, settings)
                result = cold_runner.run([NODEID])
                cold.append(time.perf_counter() - started)
                cold_runner.close()  # removing the copy is not part of the run
                assert result.all_passed, result.error
    bare_s, cold_s, warm_s = (statistics.median(x) for x in (bare, cold, warm))
    return {
        "isolation": isolation_used,
        "project_files": files,
        "repeats": repeats,
        "bare_pytest_s": round(bare_s, 4),
        "runner_cold_s": round(cold_s, 4),
        "runner_warm_s": round(warm_s, 4),
        "ratio_cold": round(cold_s / bare_s, 3),
        "ratio_warm": round(warm_s / bare_s, 3),
        "overhead_warm_ms": round((warm_s - bare_s) * 1000, 1),
        "goal_ratio_warm": WARM_RATIO_GOAL,
        "meets_goal": warm_s / bare_s <= WARM_RATIO_GOAL,
        "shadow_cold_copy_ms": round(cold_copy.seconds * 1000, 1),
        "shadow_files_copied": cold_copy.copied,
        "shadow_warm_resync_ms": round(warm_sync.seconds * 1000, 1),
        "shadow_resync_after_10_edits_ms": round(edited_sync.seconds * 1000, 1),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repeats", type=int, default=7, metavar="N")
    parser.add_argument("--files", type=int, default=2000, metavar="N", help="project size")
    parser.add_argument("--isolation", choices=("auto", "bwrap", "rlimits"), default="auto")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def main(args: argparse.Namespace) -> int:
    figures = measure(repeats=args.repeats, files=args.files, isolation=args.isolation)
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"runner overhead over bare pytest ({figures['isolation']} isolation,")
    print(f"  {figures['project_files']} files, median of {figures['repeats']} interleaved runs)")
    print(f"  bare pytest     {figures['bare_pytest_s'] * 1000:8.1f} ms")
    print(
        f"  runner, cold    {figures['runner_cold_s'] * 1000:8.1f} ms"
        f"   ratio {figures['ratio_cold']:.2f}"
    )
    goal = "meets" if figures["meets_goal"] else "misses"
    print(
        f"  runner, warm    {figures['runner_warm_s'] * 1000:8.1f} ms"
        f"   ratio {figures['ratio_warm']:.2f}  ({goal} the <= {WARM_RATIO_GOAL} goal)"
    )
    print("shadow copy")
    print(
        f"  cold copy {figures['shadow_cold_copy_ms']} ms ({figures['shadow_files_copied']} files)"
        f", warm re-sync {figures['shadow_warm_resync_ms']} ms"
        f", after 10 edits {figures['shadow_resync_after_10_edits_ms']} ms"
    )
    print(f"load average {figures['load_average_1min']} on {figures['cpus']} CPUs")
    return 0
