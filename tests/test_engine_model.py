"""The real small model (Gemma 3 270M through llama.cpp, in its worker process) driving
`selfdebug fix` end to end on a fixture project: the loop must reach a stop rule, write a complete
transcript and leave the user's file alone. Whether the tiny model finds the fix is not asserted
(it usually does not)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp")

FIXTURE = Path(__file__).parent / "fixtures" / "engine" / "sumproj"
STOP_RULES = {"passed", "max_turns", "no_improvement"}


@pytest.mark.model
@pytest.mark.timeout(300)
@pytest.mark.parametrize("mode", ["ut", "probe"])
def test_fix_with_the_embedded_model_runs_to_a_stop_rule(tmp_path, mode):
    project = tmp_path / "proj"
    shutil.copytree(FIXTURE, project)
    before = (project / "calc.py").read_bytes()
    transcript = tmp_path / "model.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "SELFDEBUG_SCRIPTED_REPLIES"}
    done = subprocess.run(
        [
            sys.executable, "-m", "selfdebug", "fix", "calc.py::sum_to",
            "--test", "check_calc.py::test_sum_to_three",
            "--test", "check_calc.py::test_sum_to_one",
            "--mode", mode, "--backend", "llama", "--model", "gemma-3-270m",
            "--max-turns", "2", "--max-tokens", "96",
            "--transcript", str(transcript),
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "passes" in done.stdout or "no candidate" in done.stdout
    assert (project / "calc.py").read_bytes() == before  # no --write: untouched

    events = [json.loads(line) for line in transcript.read_text().splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "session_start" and kinds[-1] == "session_end"
    end = events[-1]
    assert end["stop_reason"] in STOP_RULES, end
    assert end["model_calls"] >= 1 and end["completion_tokens"] > 0
    calls = [e for e in events if e["event"] == "model_call"]
    assert len(calls) == end["model_calls"]
    for call in calls:
        assert call["form"] == "completion" and call["prompt"].endswith(("```python\n", "\n"))
        assert call["completions"] and call["prompt_tokens"] > 0 and call["seconds"] > 0
    assert sum(1 for e in events if e["event"] == "candidate") == len(
        [c for c in calls if c["step"] != "add_prints"]
    )
    baseline = next(e for e in events if e["event"] == "tests")
    assert baseline["result"]["passed"] == 0 and baseline["result"]["total"] == 2
    if mode == "probe":
        log = next(e for e in events if e["event"] == "log")
        assert "i=1" in log["log"] and "return=3" in log["log"]  # the real probe values
