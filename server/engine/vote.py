"""Pick one candidate among several samples (Chen et al. §2): keep those that pass the most of
the chosen tests, then take a majority vote over their observable behaviour on the test inputs,
so that a behaviour many samples agree on beats a lucky outlier."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from selfdebug.server.runner.results import RunResult

Behaviour = tuple[tuple[str, str, str, str, str], ...]


@dataclass
class Scored:
    """A candidate (by index in the sample list) and its chosen-test run."""

    index: int
    run: RunResult


def behaviour(run: RunResult) -> Behaviour:
    """What a candidate observably does on each test: outcome, compared values or exception."""
    return tuple(
        (
            t.nodeid,
            t.outcome,
            t.assert_left or "",
            t.exc_type,
            (t.message or "")[:200] if not t.ok else "",
        )
        for t in sorted(run.tests, key=lambda t: t.nodeid)
    )


def choose(scored: Sequence[Scored]) -> Scored | None:
    """The candidate to keep: most chosen tests passed, then largest behaviour group, then the
    earliest sample (greedy order) to stay deterministic."""
    if not scored:
        return None
    best_passed = max(s.run.passed for s in scored)
    finalists = [s for s in scored if s.run.passed == best_passed]
    groups: dict[Behaviour, list[Scored]] = {}
    for s in finalists:
        groups.setdefault(behaviour(s.run), []).append(s)
    largest = max(groups.values(), key=lambda g: (len(g), -min(s.index for s in g)))
    return min(largest, key=lambda s: s.index)
