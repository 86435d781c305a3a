"""`selfdebug doctor` and `selfdebug models` as a user runs them (real processes): each check with
its verdict and fix hint, exit 1 when a critical one fails; the known models with their state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "engine" / "sumproj"


def selfdebug(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "selfdebug", *argv],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


@pytest.mark.model
def test_doctor_passes_with_the_small_model_and_reports_every_check():
    pytest.importorskip("llama_cpp")
    done = selfdebug("doctor", str(FIXTURE), "--model", "gemma-3-270m", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    checks = {check["name"]: check for check in report["checks"]}
    assert report["ok"] is True
    assert set(checks) == {
        "python + pytest",
        "project imports",
        "sandbox",
        "model",
        "llama.cpp binding",
        "GPU offload",
    }
    assert checks["python + pytest"]["ok"] and "pytest" in checks["python + pytest"]["detail"]
    assert checks["sandbox"]["ok"]  # bubblewrap is part of the test setup
    assert "sha256 verified" in checks["model"]["detail"]
    # the binding generated a token in the model process: a crashing build would fail here
    assert "generates in the model process (1 token" in checks["llama.cpp binding"]["detail"]
    assert checks["GPU offload"]["critical"] is False


def test_doctor_fails_on_a_missing_model_and_an_unreachable_endpoint(tmp_path):
    missing = selfdebug("doctor", str(FIXTURE), "--model", str(tmp_path / "absent.gguf"))
    assert missing.returncode == 1, missing.stdout + missing.stderr
    assert "[FAIL] model: model file not found" in missing.stdout
    assert "some critical checks FAILED" in missing.stdout

    unreachable = selfdebug(
        "doctor", str(FIXTURE), "--backend", "openai", "--endpoint", "http://127.0.0.1:9/v1"
    )
    assert unreachable.returncode == 1
    assert "[FAIL] endpoint: http://127.0.0.1:9/v1/models is unreachable" in unreachable.stdout
    assert "fix: is the server up?" in unreachable.stdout


def test_doctor_quick_checks_the_model_without_loading_it_and_names_its_version(tmp_path):
    """What `:checkhealth selfdebug` runs: seconds, nothing loaded or assembled."""
    pytest.importorskip("llama_cpp")
    from selfdebug import __version__

    cache = tmp_path / "cache"
    env = {**os.environ, "SELFDEBUG_MODEL_CACHE": str(cache)}
    quick = ("doctor", str(FIXTURE), "--quick", "--json", "--model")
    done = selfdebug(*quick, "gemma-3-270m", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True and report["version"] == __version__
    checks = {check["name"]: check for check in report["checks"]}
    assert list(checks) == [
        "python + pytest", "project imports", "sandbox", "model", "llama.cpp binding"
    ]  # fmt: skip
    assert checks["model"]["detail"] == "gemma-3-270m: installed, assembled on first use (241 MiB)"
    assert checks["model"]["hint"] == "or now: `selfdebug models --prepare gemma-3-270m`"
    assert checks["llama.cpp binding"]["detail"].startswith("installed (not loaded: --quick")
    assert not cache.exists() or not any(cache.iterdir())  # nothing assembled

    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF" + bytes(2**20))
    done = selfdebug(*quick, str(gguf), env=env)
    model = {c["name"]: c for c in json.loads(done.stdout)["checks"]}["model"]
    assert model["ok"] and model["detail"] == f"{gguf} (a GGUF file, 1 MiB; not loaded: --quick)"

    missing = selfdebug("doctor", str(FIXTURE), "--quick", "--model", str(tmp_path / "no.gguf"))
    assert missing.returncode == 1
    assert f"[FAIL] model: model file not found: {tmp_path / 'no.gguf'}" in missing.stdout


def test_doctor_names_a_project_without_pytest(tmp_path):
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    done = selfdebug(
        "doctor", str(FIXTURE), "--backend", "openai", "--endpoint", "http://127.0.0.1:9/v1",
        "--interpreter", str(venv / "bin" / "python"),
    )  # fmt: skip
    assert done.returncode == 1
    assert "[FAIL] python + pytest: pytest is not installed" in done.stdout


def test_models_lists_the_known_models_with_their_state(tmp_path):
    env = {**os.environ, "SELFDEBUG_MODEL_CACHE": str(tmp_path)}
    done = selfdebug("models", "--json", env=env)
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)["models"]}
    assert list(rows) == ["qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "gemma-3-270m"]
    assert rows["qwen2.5-coder-1.5b"]["default"] is True
    assert rows["qwen2.5-coder-1.5b"]["sha256"].startswith("cc324af070c2")
    assert all(row["installed"] for row in rows.values())  # the dev extras install all three
    assert all(row["file"].startswith("not assembled") for row in rows.values())  # empty cache
    assert rows["gemma-3-270m"]["path"] == str(tmp_path / "gemma-3-270m-q4_k_m.gguf")

    prepared = selfdebug("models", "--prepare", "gemma-3-270m", env=env)
    assert prepared.returncode == 0, prepared.stderr
    assert prepared.stdout.strip() == str(tmp_path / "gemma-3-270m-q4_k_m.gguf")
    listed = selfdebug("models", env=env)
    assert "gemma-3-270m: Gemma 3 270M" in listed.stdout and "file: verified" in listed.stdout

    unknown = selfdebug("models", "--prepare", "llama-70b", env=env)
    assert unknown.returncode == 2 and "known: qwen2.5-coder-1.5b" in unknown.stdout
