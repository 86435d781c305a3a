"""Round trip over a fixed sample of this interpreter's standard library (>= 2,000 functions).

Every function, at every level: the instrumented file compiles, its syntax tree minus the probes
equals the original one (docstrings included), and strip() gives back the exact bytes.
The whole corpus: `.venv/bin/python scripts/stdlib_roundtrip.py`.
"""

from __future__ import annotations

from selfdebug.instrument.corpus import roundtrip, shuffled_files

SAMPLE_FUNCTIONS = 2400


def test_stdlib_sample_roundtrips_and_compiles() -> None:
    result = roundtrip(shuffled_files(), limit=SAMPLE_FUNCTIONS)
    assert result.functions == SAMPLE_FUNCTIONS
    assert result.checks == 3 * SAMPLE_FUNCTIONS
    assert result.files > 50
    failures = [f"{f.path}::{f.qualname} [{f.level}] {f.reason}" for f in result.failures]
    assert failures == []
    assert len(result.unparseable) <= result.files // 20, result.unparseable
