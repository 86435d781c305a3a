"""All of the system's own overheads in one run: `selfdebug bench overhead [--json]`.

Gathers the figures each component promises through its own `measure()` (instrument + strip per
function, runner vs bare pytest, code-action latency during a session, prefix reuse), and adds the
one only a whole session can show: the share of a debugging turn spent outside the model, measured
on a real session with the local model (goal: under 10%). A component whose module is missing
or fails is reported as "unavailable: <reason>" and the others still run.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

COMPONENTS: dict[str, str] = {
    "instrument": "locate + instrument + strip per function",
    "runner": "runner overhead vs bare pytest (cold / warm)",
    "lsp": "code-action latency, idle and while a session runs",
    "backend": "tokens per second and prefix-reuse ratio",
}
SESSION = "session"
OUTSIDE_MODEL_GOAL = 0.10

# A small, self-contained problem so the command runs without the benchmark data.
_LARGEST_TESTS = (
    "def test_three():\n    assert largest([1, 3, 2]) == 3\n\n\n"
    "def test_four():\n    assert largest([2, 9, 4, 1]) == 9\n"
)
_SESSION_PROBLEM = {
    "id": "overhead/largest",
    "source": "builtin",
    "entry_point": "largest",
    "buggy": (
        "def largest(numbers):\n"
        '    """The largest number of a non-empty list."""\n'
        "    best = numbers[0]\n"
        "    for number in numbers:\n"
        "        if number < best:\n"
        "            best = number\n"
        "    return best\n"
    ),
    "fixed": "",
    "tests": _LARGEST_TESTS,  # hidden = visible: this problem only times a session
    "visible_tests": _LARGEST_TESTS,
}


def measure_component(name: str) -> dict[str, Any] | str:
    """The component's own `selfdebug.bench.<name>.measure()`, or "unavailable: <reason>"."""
    module_name = f"selfdebug.bench.{name}"
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        return f"unavailable: {error}"
    measure = getattr(module, "measure", None)
    if measure is None:
        return f"unavailable: {module_name} has no measure()"
    try:
        return dict(measure())
    except Exception as error:
        last = traceback.extract_tb(error.__traceback__)[-1]
        return f"unavailable: {type(error).__name__}: {error} ({last.filename}:{last.lineno})"


def turn_breakdown(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per turn, from a session transcript: wall time, model time and the share outside the model.

    A turn runs from its "turn k/N" progress event to the next turn's (or the session's end); its
    model time is the sum of its model calls. The baseline test run before turn 1 is left out here
    (it is in the session totals).
    """
    starts = [
        (int(e["turn"]), float(e["t"]))
        for e in events
        if e.get("event") == "progress" and str(e.get("phase", "")).startswith("turn ")
    ]
    end = max((float(e["t"]) for e in events), default=0.0)
    turns = []
    for index, (turn, start) in enumerate(starts):
        stop = starts[index + 1][1] if index + 1 < len(starts) else end
        model = sum(
            float(e.get("seconds", 0.0))
            for e in events
            if e.get("event") == "model_call" and e.get("turn") == turn
        )
        wall = max(stop - start, 1e-9)
        test_runs = sum(1 for e in events if e.get("event") == "tests" and e.get("turn") == turn)
        turns.append(
            {
                "turn": turn,
                "wall_s": round(wall, 3),
                "model_s": round(model, 3),
                "test_runs": test_runs,
                "outside_model_share": round(max(0.0, wall - model) / wall, 4),
            }
        )
    return turns


def measure_session(
    mode: str = "probe", max_turns: int = 2, model_path: str = "", problem: dict | None = None
) -> dict[str, Any]:
    """One real session with the default (or given) local model: where does a turn's time go?

    The model is loaded and warmed up before the clock starts, so loading it is not counted as
    model time (that would flatter the share spent outside the model).
    """
    from selfdebug.bench.datasets import problem_from_record, write_project
    from selfdebug.server.backends.base import CompletionRequest
    from selfdebug.server.backends.factory import make_backend
    from selfdebug.server.backends.settings import BackendSettings
    from selfdebug.server.engine import run_session
    from selfdebug.server.engine.transcript import read_transcript

    bench_problem = problem_from_record(problem or _SESSION_PROBLEM)
    backend = make_backend(BackendSettings(model_path=model_path))
    try:
        load_started = time.monotonic()
        backend.complete(CompletionRequest(prompt="def add(a, b):\n", max_tokens=1))
        load_seconds = time.monotonic() - load_started
        with tempfile.TemporaryDirectory(prefix="selfdebug-overhead-") as tmp:
            project = write_project(bench_problem, Path(tmp), bench_problem.buggy, hidden=False)
            request = project.debug_request(
                bench_problem,
                mode,
                max_turns=max_turns,
                transcript_path=Path(tmp) / "transcript.jsonl",
            )
            started = time.monotonic()
            result = run_session(request, backend)
            wall = time.monotonic() - started
            turns = turn_breakdown(read_transcript(Path(tmp) / "transcript.jsonl"))
    finally:
        backend.close()
    seconds = result.seconds or wall
    outside = max(0.0, seconds - result.model_seconds)
    share = outside / seconds if seconds > 0 else None
    turns_wall = sum(t["wall_s"] for t in turns)
    turns_share = (
        sum(t["wall_s"] - t["model_s"] for t in turns) / turns_wall if turns_wall > 0 else None
    )
    return {
        "backend": backend.name,
        "problem": bench_problem.id,
        "mode": result.mode,
        "stop_reason": result.stop_reason,
        "turns": result.turns,
        "model_calls": result.model_calls,
        "prompt_tokens": result.prompt_tokens,
        "completion_tokens": result.completion_tokens,
        "model_load_and_warmup_s": round(load_seconds, 3),
        "session_s": round(seconds, 3),
        "model_s": round(result.model_seconds, 3),
        "outside_model_s": round(outside, 3),
        "outside_model_s_per_turn": round(outside / result.turns, 3) if result.turns else None,
        "outside_model_share": round(share, 4) if share is not None else None,  # with baseline
        "turns_outside_model_share": round(turns_share, 4) if turns_share is not None else None,
        "per_turn": turns,
        # Turns whose candidates were all rejected before testing run no tests: such a turn's
        # share says little, so say how many turns did run tests.
        "turns_with_test_runs": sum(1 for t in turns if t["test_runs"]),
        "goal_outside_model_share": OUTSIDE_MODEL_GOAL,
        "meets_goal": turns_share is not None and turns_share < OUTSIDE_MODEL_GOAL,
    }


def measure(
    skip: tuple[str, ...] = (), mode: str = "probe", max_turns: int = 2, model_path: str = ""
) -> dict[str, Any]:
    """Every component's figures plus the session's outside-model share, on this machine, now."""
    figures: dict[str, Any] = {}
    for name in COMPONENTS:
        if name not in skip:
            started = time.monotonic()
            figures[name] = measure_component(name)
            if isinstance(figures[name], dict):
                figures[name].setdefault("measure_wall_s", round(time.monotonic() - started, 2))
    if SESSION not in skip:
        try:
            figures[SESSION] = measure_session(mode, max_turns, model_path)
        except Exception as error:
            figures[SESSION] = f"unavailable: {type(error).__name__}: {error}"
    return figures


def _print_readably(figures: dict[str, Any]) -> None:
    titles = {**COMPONENTS, SESSION: "share of a debugging turn spent outside the model"}
    for name, value in figures.items():
        print(f"{name}: {titles.get(name, '')}")
        if isinstance(value, dict):
            for key, item in value.items():
                shown = json.dumps(item) if isinstance(item, dict | list) else item
                print(f"  {key}: {shown}")
        else:
            print(f"  {value}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=[*COMPONENTS, SESSION],
        help="leave out a component (repeatable)",
    )
    parser.add_argument(
        "--mode",
        default="probe",
        help="mode of the measured session (default probe: what auto picks)",
    )
    parser.add_argument("--max-turns", type=int, default=2)
    parser.add_argument(
        "--model", default="", help="known model name or GGUF path (default: the default model)"
    )


def main(args: argparse.Namespace) -> int:
    figures = measure(tuple(args.skip), args.mode, args.max_turns, args.model)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        _print_readably(figures)
    unavailable = [name for name, value in figures.items() if isinstance(value, str)]
    if unavailable:
        print(f"unavailable: {', '.join(unavailable)}", file=sys.stderr)
    return 0
