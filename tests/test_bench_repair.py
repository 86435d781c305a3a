"""The repair benchmark end to end: real engine sessions, real pytest runs, scripted model replies.

Each problem of the 3-problem slice gets its own scripted backend: the reference fix (fixed), a
fix that passes the visible test but not the hidden ones (plausible but wrong), and garbage (not
fixed). Resuming after an interruption runs only the pairs not yet saved.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from selfdebug.bench.datasets import Problem, load_problems
from selfdebug.bench.repair import RESULTS_FILE, RepairConfig, run_repair
from selfdebug.server.backends.scripted import ScriptedBackend

SLICE = Path(__file__).parent / "fixtures" / "bench" / "slice.jsonl"
PROBLEMS = {p.id: p for p in load_problems(SLICE)}
HIDDEN_ONLY_TESTS = ("test_below", "test_one", "test_four", "test_none")

REPLIES = {
    "mini/clamp": (
        "Bug: a value above the range is clamped to `low` instead of `high`.\n"
        f"```python\n{PROBLEMS['mini/clamp'].fixed}```\n"
    ),
    "mini/largest": (
        "Bug: the loop keeps the smaller number.\n"
        "```python\ndef largest(numbers):\n    return numbers[1]\n```\n"
    ),
    "mini/count_vowels": "I am not sure. Maybe the weather? ### ### ###",
}


class PerProblemBackends:
    """A backend factory for the harness: each problem gets a scripted backend with its reply."""

    def __init__(self) -> None:
        self.backends: dict[str, ScriptedBackend] = {}

    def __call__(self, problem: Problem) -> ScriptedBackend:
        backend = ScriptedBackend([REPLIES[problem.id]])
        self.backends[problem.id] = backend
        return backend

    def prompts(self) -> str:
        texts = []
        for backend in self.backends.values():
            for request in backend.requests:
                texts.append(request.prompt or json.dumps(request.messages))
        return "\n".join(texts)


def config(out: Path, **overrides) -> RepairConfig:
    return RepairConfig(
        datasets=[SLICE], out=out, modes=["ut"], max_turns=2, test_timeout_s=5.0, **overrides
    )


def test_counts_one_fixed_one_plausible_but_wrong_one_not_fixed(tmp_path: Path) -> None:
    backends = PerProblemBackends()
    report = run_repair(config(tmp_path), backend_factory=backends, show_progress=False)

    ut = report["modes"]["ut"]
    assert ut["problems"] == 3
    assert (ut["fixed_hidden"], ut["plausible_but_wrong"], ut["not_fixed"]) == (1, 1, 1)
    assert ut["fixed_visible"] == 2
    assert sum(ut["fixes_by_turn"].values()) == 1
    assert ut["model_calls_per_problem"] >= 1

    lines = (tmp_path / RESULTS_FILE).read_text(encoding="utf-8").splitlines()
    by_id = {row["id"]: row for row in map(json.loads, lines)}
    assert by_id["mini/largest"]["visible_passed"] == by_id["mini/largest"]["visible_total"] == 1
    assert by_id["mini/largest"]["hidden_passed"] == 1 < by_id["mini/largest"]["hidden_total"]
    assert by_id["mini/clamp"]["hidden_passed"] == by_id["mini/clamp"]["hidden_total"] == 3
    assert not by_id["mini/count_vowels"]["has_candidate"] or (
        by_id["mini/count_vowels"]["visible_passed"] == 0
    )
    for name in ("report.json", "report.md", "fixes_by_turn.png"):
        assert (tmp_path / name).stat().st_size > 0
    # The hidden tests are for scoring only: the model never saw one of them.
    shown = backends.prompts()
    assert "test_inside" in shown  # a visible test, to show the check can see test names
    assert not [name for name in HIDDEN_ONLY_TESTS if name in shown]


class StopAfter:
    def __init__(self, count: int) -> None:
        self.count = count
        self.seen: list[str] = []

    def __call__(self, outcome) -> None:
        self.seen.append(outcome.id)
        if len(self.seen) == self.count:
            raise KeyboardInterrupt("stopped by the test")


def test_an_interrupted_run_resumes_with_only_the_remaining_problems(tmp_path: Path) -> None:
    stop = StopAfter(2)
    with pytest.raises(KeyboardInterrupt):
        run_repair(
            config(tmp_path),
            backend_factory=PerProblemBackends(),
            on_result=stop,
            show_progress=False,
        )
    saved = (tmp_path / RESULTS_FILE).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in saved] == stop.seen == ["mini/clamp", "mini/largest"]

    untouched = PerProblemBackends()
    partial = run_repair(
        replace(config(tmp_path), report_only=True), backend_factory=untouched, show_progress=False
    )
    assert partial["coverage"] == {"done": 2, "planned": 3} and not untouched.backends
    assert partial["modes"]["ut"]["fixed_hidden"] == 1

    backends = PerProblemBackends()
    report = run_repair(config(tmp_path), backend_factory=backends, show_progress=False)
    assert list(backends.backends) == ["mini/count_vowels"]
    assert report["coverage"] == {"done": 3, "planned": 3}
    ut = report["modes"]["ut"]
    assert (ut["fixed_hidden"], ut["plausible_but_wrong"], ut["not_fixed"]) == (1, 1, 1)
    assert len((tmp_path / RESULTS_FILE).read_text(encoding="utf-8").splitlines()) == 3


def test_the_command_line_with_an_env_scripted_backend_and_two_jobs(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"replies": [REPLIES["mini/clamp"]]}), encoding="utf-8")
    out = tmp_path / "out"
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "selfdebug",
            "bench",
            "repair",
            "--dataset",
            str(SLICE),
            "--modes",
            "none,ut",
            "--ids",
            "mini/clamp,mini/largest",
            "--max-turns",
            "2",
            "--jobs",
            "2",
            "--no-progress",
            "--out",
            str(out),
        ],
        env=os.environ | {"SELFDEBUG_SCRIPTED_REPLIES": str(script)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    assert "| none | 2 | 1 | **1** | 0 | 1 |" in completed.stdout
    assert "| ut | 2 | 1 | **1** | 0 | 1 |" in completed.stdout
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["config"]["backend_name"] == "scripted"


def test_unknown_mode_is_a_usage_error(tmp_path: Path) -> None:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "selfdebug",
            "bench",
            "repair",
            "--dataset",
            str(SLICE),
            "--modes",
            "ut,telepathy",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 2
    assert "telepathy" in completed.stderr


@pytest.mark.model
def test_the_harness_talks_to_a_real_openai_compatible_endpoint(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp.server")
    from helpers.llama_server import embedded_gguf, running_llama_server

    out = tmp_path / "out"
    with running_llama_server(embedded_gguf(), chat_format="gemma", n_ctx=4096) as server:
        command = [
            sys.executable, "-m", "selfdebug", "bench", "repair", "--dataset", str(SLICE),
            "--modes", "none", "--ids", "mini/clamp", "--max-turns", "1", "--no-progress",
            "--backend", "openai", "--endpoint", server.base_url, "--model-name", "gemma",
            "--out", str(out),
        ]  # fmt: skip
        completed = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]
    (row,) = [json.loads(line) for line in (out / RESULTS_FILE).read_text().splitlines()]
    # a reply cut at its length is asked again (the session's answer budget): one call or more
    assert row["model_calls"] >= 1 and row["completion_tokens"] > 0, row
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["config"]["backend_name"].startswith("openai:gemma@http://127.0.0.1:")
