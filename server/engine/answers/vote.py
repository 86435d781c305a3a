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


def rank(scored: Sequence[Scored]) -> list[Scored]:
    """Every candidate in vote order: most chosen tests passed, then larger behaviour group, then
    the earlier sample (greedy order) to stay deterministic. The session walks this order through
    the regression guard, so a sample the vote ranks second still wins when the first one breaks
    a wider test (all-passing samples are indistinguishable to the vote)."""
    groups: dict[tuple[int, Behaviour], list[Scored]] = {}
    for s in scored:
        groups.setdefault((s.run.passed, behaviour(s.run)), []).append(s)

    def group_order(key: tuple[int, Behaviour]) -> tuple[int, int, int]:
        members = groups[key]
        return (-key[0], -len(members), min(s.index for s in members))

    ordered: list[Scored] = []
    for key in sorted(groups, key=group_order):
        ordered.extend(sorted(groups[key], key=lambda s: s.index))
    return ordered


def choose(scored: Sequence[Scored]) -> Scored | None:
    """The candidate the vote keeps (the first of `rank`); None when there is none."""
    ordered = rank(scored)
    return ordered[0] if ordered else None
