"""The generated-input check of the model's fixes (issue 26): before a fix is proposed, it, the
other candidates of its turn that pass the same tests and the original run on inputs made from
the tests' own calls (judge/crosscheck.py).

A fix that raises where the original returned normally is very likely an overfit (a fix of a
dict-like `update` that calls `.items()` on every argument breaks `update([('a', 1)])`, which
no test tried): the evidence says so, and a candidate without that flaw is proposed instead
when the turn has one. Candidates that pass the same tests and still disagree are named too.
The search's own survivors get the same check in judge/verdicts.py (`judge_survivors`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from selfdebug.server.engine.judge.crosscheck import (
    CrossCheck,
    Versions,
    describe_separation,
    run_crosscheck,
)
from selfdebug.server.engine.search.host import SearchHost
from selfdebug.server.runner.search_runner import SearchRunner


@dataclass
class FixEvidence:
    """What the generated inputs say about each candidate (by its index in the turn)."""

    check: CrossCheck | None = None
    flaws: dict[int, str] = field(default_factory=dict)  # index -> "raises X on f(...), ..."
    disagreements: dict[int, str] = field(default_factory=dict)  # index -> "on f(...): ..."

    def flawed(self, index: int) -> bool:
        return index in self.flaws

    def warnings(self, index: int) -> list[str]:
        """For the proposed fix's evidence (DebugResult.warnings)."""
        found = []
        if index in self.flaws:
            found.append(f"generated inputs: the fix {self.flaws[index]}")
        if index in self.disagreements:
            found.append(
                "generated inputs: another candidate that passes the same tests answers "
                f"otherwise {self.disagreements[index]}"
            )
        return found


def check_fixes(host: SearchHost, codes: Sequence[tuple[int, str]]) -> FixEvidence:
    """Run `codes` ((index, function text) of the candidates that pass every chosen test) and
    the original on generated inputs; no evidence when the check is off or cannot run."""
    evidence = FixEvidence()
    request = host.request
    if request.budget.generated_inputs <= 0 or not codes or not request.target.tests:
        return evidence
    searcher = SearchRunner(
        host.runner, host.file, host.target.qualname, host.source, host.target.start_line + 1
    )
    versions = Versions({str(i): code for i, code in codes}, host.target.start_line + 1)
    host.emit(f"running {len(codes)} fix(es) on generated inputs", 0.85)
    tests = list(dict.fromkeys([*request.target.tests, *request.target.wider_tests]))
    remaining = host.remaining_s()
    check = run_crosscheck(
        searcher,
        host.target.name,
        versions,
        tests,
        count=request.budget.generated_inputs,
        cancel=host.cancel,
        timeout_s=remaining,
    )
    host.cancel.raise_if_cancelled()
    host.record(
        "fix_crosscheck",
        versions=len(codes),
        **check.record_fields(),
    )
    if not check.usable:
        return evidence
    evidence.check = check
    for index, _code in codes:
        note = check.flaw_note(str(index))
        if note:
            evidence.flaws[index] = note
    sound = [str(i) for i, _code in codes if i not in evidence.flaws]  # a flaw is said already
    for index, _code in codes:
        others = [k for k in sound if k != str(index) and not check.agree(k, str(index))]
        if others:
            separation = check.separating([str(index), others[0]])
            if separation is not None:
                labels = {str(index): "this one", others[0]: "the other"}
                evidence.disagreements[index] = describe_separation(separation, labels)
    host.record("fix_evidence", flaws=evidence.flaws, disagreements=evidence.disagreements)
    return evidence
