"""`selfdebug fix` and `selfdebug demo` as a user runs them: real processes, real runner, the
scripted model chosen through SELFDEBUG_SCRIPTED_REPLIES. Exit codes 0/1/2, messages, never a
traceback, the file written only with --write."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "engine" / "sumproj"
THREE = "check_calc.py::test_sum_to_three"
ONE = "check_calc.py::test_sum_to_one"
GOOD = (
    "def sum_to(n):\n    total = 0\n    for i in range(1, n + 1):\n        total += i\n"
    "    return total\n"
)
BUGGY = (
    "def sum_to(n):\n    total = 0\n    for i in range(1, n):\n        total += i\n"
    "    return total\n"
)
DEMO_GOOD = (
    "def total_price(prices, quantity):\n    total = 0\n    for i in range(quantity):\n"
    "        total += prices[i]\n    return total\n"
)


def reply(code: str) -> str:
    return f"Bug: off by one.\n```python\n{code}```\n"


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    return root


def selfdebug(args, tmp_path, replies=None, cwd=None, delay=0.0, timeout=240, **popen):
    env = dict(os.environ)
    env.pop("SELFDEBUG_SCRIPTED_REPLIES", None)
    if replies is not None:
        script = tmp_path / f"script-{time.monotonic_ns()}.json"
        script.write_text(json.dumps({"replies": replies, "delay_s": delay}))
        env["SELFDEBUG_SCRIPTED_REPLIES"] = str(script)
    return subprocess.run(
        [sys.executable, "-m", "selfdebug", *args],
        cwd=cwd or tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        **popen,
    )


def test_fix_found_prints_diff_evidence_and_leaves_the_file(project, tmp_path):
    before = (project / "calc.py").read_bytes()
    transcript = tmp_path / "fix.jsonl"
    done = selfdebug(
        [
            "fix",
            "calc.py::sum_to",
            "--test",
            THREE,
            "--test",
            ONE,
            "--mode",
            "ut",
            "--transcript",
            str(transcript),
        ],
        tmp_path,
        replies=[reply(GOOD)],
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    assert "+    for i in range(1, n + 1):" in done.stdout
    # the default regression guard is the chosen tests' whole file: the Counter test fails
    # before and after (not our function), the others pass
    assert "passes 2/2 chosen, 4/5 wider (before: 0/2 chosen)" in done.stdout
    assert "Model's explanation: off by one." in done.stdout
    assert "Run again with --write" in done.stdout
    assert (project / "calc.py").read_bytes() == before
    events = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert events[0]["event"] == "session_start" and events[-1]["event"] == "session_end"
    assert "Traceback" not in done.stderr


def test_write_applies_the_fix_then_the_tests_pass(project, tmp_path):
    args = [
        "fix",
        f"{project / 'calc.py'}::sum_to",
        "--test",
        f"{project / 'check_calc.py'}::test_sum_to_three",
        "--mode",
        "ut",
    ]
    done = selfdebug([*args, "--write"], tmp_path, replies=[reply(GOOD)])
    assert done.returncode == 0, done.stderr
    assert "range(1, n + 1)" in (project / "calc.py").read_text()
    assert "Fix found and written" in done.stdout
    again = selfdebug(args, tmp_path, replies=[reply(GOOD)])
    assert again.returncode == 0 and "already pass" in again.stdout


def test_wider_tests_are_reported(project, tmp_path):
    done = selfdebug(
        [
            "fix",
            "calc.py::sum_to",
            "--test",
            THREE,
            "--wider-test",
            "check_calc.py::test_sum_to_zero",
            "--mode",
            "ut",
        ],
        tmp_path,
        replies=[reply(GOOD)],
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    assert "passes 1/1 chosen, 1/1 wider" in done.stdout


def test_no_fix_exits_1(project, tmp_path):
    done = selfdebug(
        ["fix", "calc.py::sum_to", "--test", THREE, "--mode", "ut", "--max-turns", "1"],
        tmp_path,
        replies=[reply(BUGGY)],
        cwd=project,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "No candidate passes the chosen tests" in done.stdout
    assert "Traceback" not in done.stderr


def test_tests_are_found_when_none_given(project, tmp_path):
    done = selfdebug(
        ["fix", "calc.py::sum_to", "--mode", "ut"], tmp_path, replies=[reply(GOOD)], cwd=project
    )
    assert done.returncode == 0, done.stderr
    assert THREE in done.stderr  # the header names the tests it found
    assert "passes 4/4 chosen" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["fix", "missing.py::f"], "no such file: missing.py"),
        (["fix", "calc.py"], "expected path/to/module.py::function"),
        (["fix", "calc.py::nothing_here"], "no function 'nothing_here'"),
        (["fix", "calc.py::sum_to", "--test", "nope.py::test_x"], "no such file nope.py"),
        (["fix", "calc.py::sum_to", "--test", "check_calc"], "bad test node id"),
        (["fix", "lonely.py::lonely"], "no test executes lonely: ran "),
        (["fix", "calc.py::sum_to", "--test", "check_calc.py::test_nope"], "test_nope"),
        (["fix", "calc.py::sum_to", "--model-edits", "-1"], "--model-edits must be 0 (off)"),
    ],
)
def test_usage_errors_exit_2_with_a_message(project, tmp_path, args, message):
    (project / "lonely.py").write_text("def lonely():\n    return 1\n")
    done = selfdebug(args, tmp_path, replies=[reply(GOOD)], cwd=project)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_no_model_configured_exits_2(project, tmp_path):
    done = selfdebug(
        ["fix", "calc.py::sum_to", "--test", THREE, "--backend", "openai"], tmp_path, cwd=project
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("selfdebug fix: ")
    assert "Traceback" not in done.stderr


def test_ctrl_c_cancels_cleanly(project, tmp_path):
    env = dict(os.environ)
    script = tmp_path / "slow.json"
    script.write_text(json.dumps({"replies": [reply(GOOD)], "delay_s": 60}))
    env["SELFDEBUG_SCRIPTED_REPLIES"] = str(script)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "selfdebug",
            "fix",
            "calc.py::sum_to",
            "--test",
            THREE,
            "--mode",
            "ut",
            "--transcript",
            str(tmp_path / "t.jsonl"),
        ],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until the model is being asked
        text = (tmp_path / "t.jsonl").read_text() if (tmp_path / "t.jsonl").exists() else ""
        if '"asking the model"' in text:
            break
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stdout + stderr
    assert "Cancelled; the file was not changed." in stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize(
    ("demo_reply", "expected", "code"),
    [(DEMO_GOOD, "a FIX WAS FOUND", 0), ("no idea", "NO FIX WAS FOUND", 1)],
)
def test_demo_exits_0_only_when_a_fix_was_found(tmp_path, demo_reply, expected, code):
    done = selfdebug(
        ["demo", "--max-turns", "1", "--mode", "ut"],
        tmp_path,
        replies=[reply(demo_reply) if "def" in demo_reply else demo_reply],
    )
    assert done.returncode == code, done.stdout + done.stderr
    assert expected in done.stdout
    assert "total_price" in done.stdout


def test_demo_setup_error_exits_2_with_the_reason(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "SELFDEBUG_SCRIPTED_REPLIES"}
    done = subprocess.run(
        [sys.executable, "-m", "selfdebug", "demo", "--model", "no-such-model"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "unknown model 'no-such-model'" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.model
@pytest.mark.timeout(900)
def test_demo_with_the_default_model_fixes_the_bug(tmp_path):
    """README command 1's job, as a user runs it: no model flag, the default Qwen2.5-Coder-1.5B
    in its worker process, the demo's off-by-one fixed, the diff and the evidence printed."""
    pytest.importorskip("llama_cpp")
    env = {k: v for k, v in os.environ.items() if k != "SELFDEBUG_SCRIPTED_REPLIES"}
    done = subprocess.run(
        [sys.executable, "-m", "selfdebug", "demo"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=880,
    )
    # exit 0 with a fix, 1 without one; never a setup error (2) or a crash
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "backend llama:qwen2.5-coder-1.5b" in " ".join((done.stdout + done.stderr).split())
    if done.returncode == 0:
        assert "a FIX WAS FOUND" in done.stdout and "passes" in done.stdout
    else:
        assert "NO FIX WAS FOUND" in done.stdout


def test_demo_passes_backend_options_through_to_fix(tmp_path):
    import argparse

    from selfdebug.commands import demo

    parser = argparse.ArgumentParser()
    demo.add_arguments(parser)
    args = parser.parse_args(
        ["--backend", "openai", "--endpoint", "http://127.0.0.1:8000/v1", "--model-name", "m",
         "--allow-remote", "--mode", "trace", "--samples", "3"]
    )  # fmt: skip
    project = demo.copy_demo_project(tmp_path / "demo")
    fix_args = demo.fix_arguments(args, project)
    assert fix_args.target == f"{project / 'shop.py'}::total_price"
    assert (fix_args.backend, fix_args.endpoint, fix_args.model_name) == (
        "openai",
        "http://127.0.0.1:8000/v1",
        "m",
    )
    assert fix_args.allow_remote and fix_args.mode == "trace" and fix_args.samples == 3
    assert not fix_args.require_sandbox
    strict = demo.fix_arguments(parser.parse_args(["--require-sandbox"]), project)
    assert strict.require_sandbox  # the demo runs tests too: the same refusal is on offer
    assert strict.mode == "ut"  # the model at work: auto's edit search alone fixes the demo
    assert sorted(p.name for p in project.iterdir()) == [
        "check_shop.py",
        "pyproject.toml",
        "shop.py",
    ]


def test_test_ids_that_look_like_markup_are_printed_as_they_are(tmp_path):
    """`[/a/-/a]` closes a rich tag (it crashed the CLI) and `[active_record-...]` opens one
    (it vanished): every id is printed verbatim."""
    root = tmp_path / "slashproj"
    shutil.copytree(FIXTURE.parent / "slashproj", root)
    done = selfdebug(
        ["fix", "paths.py::strip_slash", "--mode", "search", "--no-wider"], tmp_path, cwd=root
    )
    output = done.stdout + done.stderr
    assert "Traceback" not in output and "MarkupError" not in output, output
    assert done.returncode in (0, 1), output
    assert "check_paths.py::test_strip_slash[/a/-/a]" in output
    assert "check_paths.py::test_strip_slash_keeps_words[active_record-Active Record]" in output


@pytest.mark.parametrize("command", ["fix", "test"])
def test_a_folder_is_named_as_a_folder(tmp_path: Path, command: str) -> None:
    """`tests::median` names a folder: said so (exit 2), not "no such file"."""
    (tmp_path / "tests").mkdir()
    done = selfdebug([command, "tests::median"], tmp_path, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "tests is a folder, not a file" in done.stderr
    assert "no such file" not in done.stderr
    assert "Traceback" not in done.stderr
