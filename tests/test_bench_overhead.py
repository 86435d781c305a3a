"""`selfdebug bench overhead`: all components' figures in one run; where a turn's time goes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from selfdebug.bench.overhead import measure_component, measure_session, turn_breakdown

FIX = (
    "Bug: the comparison keeps the smaller number.\n```python\ndef largest(numbers):\n"
    "    best = numbers[0]\n    for number in numbers:\n        if number > best:\n"
    "            best = number\n    return best\n```\n"
)


def test_turn_breakdown_splits_each_turn_into_model_and_outside_time() -> None:
    events = [
        {"event": "tests", "t": 2.0, "turn": 0},
        {"event": "progress", "t": 2.0, "turn": 1, "phase": "turn 1/2"},
        {"event": "model_call", "t": 11.0, "turn": 1, "seconds": 9.0},
        {"event": "progress", "t": 12.0, "turn": 2, "phase": "turn 2/2"},
        {"event": "progress", "t": 12.1, "turn": 2, "phase": "asking the model"},
        {"event": "model_call", "t": 16.0, "turn": 2, "seconds": 3.0},
        {"event": "session_end", "t": 18.0},
    ]
    turns = turn_breakdown(events)
    assert [(t["turn"], t["wall_s"], t["model_s"]) for t in turns] == [
        (1, 10.0, 9.0),
        (2, 6.0, 3.0),
    ]
    assert turns[0]["outside_model_share"] == 0.1
    assert turns[1]["outside_model_share"] == 0.5


def test_a_missing_component_is_reported_not_fatal() -> None:
    assert measure_component("no_such_component").startswith("unavailable: ")


def test_the_session_measure_with_a_scripted_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"replies": [FIX], "delay_s": 0.2}), encoding="utf-8")
    monkeypatch.setenv("SELFDEBUG_SCRIPTED_REPLIES", str(script))
    figures = measure_session(mode="ut", max_turns=2)
    assert figures["stop_reason"] == "passed"
    assert figures["turns"] == 1 and figures["model_calls"] == 1
    assert figures["model_s"] >= 0.2  # the scripted delay counts as model time
    assert 0 < figures["turns_outside_model_share"] < 1
    assert figures["per_turn"][0]["model_s"] == pytest.approx(figures["model_s"], abs=0.01)


def test_the_command_prints_one_json_object_even_with_parts_left_out(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"replies": [FIX]}), encoding="utf-8")
    skips = ["--skip", "instrument", "--skip", "runner", "--skip", "lsp", "--skip", "backend"]
    completed = subprocess.run(
        [sys.executable, "-m", "selfdebug", "bench", "overhead", "--json", *skips],
        env=os.environ | {"SELFDEBUG_SCRIPTED_REPLIES": str(script)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    figures = json.loads(completed.stdout)
    assert list(figures) == ["session"]
    assert figures["session"]["backend"] == "scripted"


@pytest.mark.model
def test_the_session_measure_with_the_embedded_model() -> None:
    figures = measure_session(mode="ut", max_turns=1, model_path="gemma-3-270m")
    assert figures["backend"].startswith("llama:")
    assert figures["model_calls"] == 1 and figures["completion_tokens"] > 0
    assert figures["model_s"] > 0
    assert 0 <= figures["turns_outside_model_share"] <= 1
