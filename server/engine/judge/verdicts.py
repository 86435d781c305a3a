"""The survivors run against each other: which one is proposed, which are undecided, and why.

`judge_survivors` runs the distinct survivors and the original on inputs generated from the
tests' own calls (crosscheck.py) and applies its rules in order: survivors that raise where the
original returned give way; those that agree everywhere are one answer; of answers that differ,
the only one that keeps every result the original returned; else the session's preference (the
model's vote, `preferred`); else the smallest at one line; else, at several lines, nothing, and
the input that tells them apart is shown to the user and the model (the classic overfitting of
such a search). `SurvivorVerdict.rule` names the rule that decided; `agreement`, `caveat` and
`flaws` are the reasons the proposed fix's explanation and warnings give.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field

from selfdebug.server.engine.judge.context import SearchContext
from selfdebug.server.engine.judge.crosscheck import (
    CrossCheck,
    Separation,
    crosscheck_programs,
    describe_separation,
    gives_evidence,
    on_generated_inputs,
)
from selfdebug.server.engine.judge.survivors import Survivor, by_program
from selfdebug.server.engine.search.edit_class import Edit
from selfdebug.server.engine.search.once_loops import loops_once
from selfdebug.server.engine.types import Alternatives
from selfdebug.server.runner.search_runner import SearchRunner

MAX_CHECKED = 10  # distinct survivors run on generated inputs


@dataclass
class SurvivorVerdict:
    """What the survivors come to once run against each other (see `judge_survivors`)."""

    chosen: list[Survivor] = field(default_factory=list)  # to verify, best first
    ambiguous: list[Survivor] = field(default_factory=list)  # differing answers: none chosen
    check: CrossCheck | None = None
    separation: str = ""  # the input that tells the ambiguous ones apart, each one's result
    agreement: str = ""  # "2 edits at lines 6 and 7 behave the same on 200 generated inputs"
    flaws: dict[int, str] = field(default_factory=dict)  # id(survivor) -> flaw note
    groups: list[list[str]] = field(default_factory=list)  # the edits, by behaviour
    rule: str = ""  # which rule decided ("one answer", "only a repair", "one line", ...)
    caveat: str = ""  # what the tests could not tell: "2 fixes pass; they differ on f(0): ..."
    alternatives: Alternatives | None = None  # the caveat's or the ambiguous edits, structured

    def notes(self, survivor: Survivor) -> list[str]:
        """What the proposed edit's explanation and warnings say about this evidence."""
        notes = [self.agreement] if self.agreement else []
        return notes + ([self.flaws[id(survivor)]] if id(survivor) in self.flaws else [])


def judge_survivors(
    context: SearchContext, searcher: SearchRunner, kept: Sequence[Survivor], *, vote: bool = True
) -> SurvivorVerdict:
    """The distinct programs among `kept` (best first; a pair whose part passes alone is
    left out: its other change is not needed), run with the original on generated
    inputs (crosscheck.py). Those that raise where the original returned give way to those
    that do not; the rest that agree everywhere are one answer (the first, smallest, is
    proposed). When they disagree, the one answer that keeps every result the original
    returned normally, where each other one changes some (`CrossCheck.only_repair`: it fixes
    a crash or a hang and nothing else; of several, the one that also keeps the original's
    other exceptions), is proposed; else, at more than one line, nothing is
    proposed and the input that separates them is shown instead; at one line, the smallest
    edit there.

    Without that evidence (no inputs could be made), survivors at several lines are treated as
    disagreeing; at one line the model votes (`vote`; its answers count only when they are a
    survivor's program, or scored) before the smallest is taken (HumanEvalFix/147: scored
    among survivors at four lines, a wrong one was chosen where none was right). On QuixBugs dev
    before the check (visible tests: one or two cases), survivors at several lines were far more
    common among the search's fixes that failed hidden tests than among the right ones."""
    alone = {s.edit.program for s in kept}
    kept = [s for s in kept if not any(p.program in alone for p in s.edit.parts)]  # minimal ones
    programs = [group[0] for group in by_program(kept).values()][:MAX_CHECKED]
    verdict = SurvivorVerdict()
    if not programs:
        return verdict
    check = verdict.check = crosscheck_programs(context, searcher, programs)
    if check is None:  # no evidence: at one line the model's vote or the smallest, else nothing
        verdict.rule = "no generated inputs"
        one_line = len({n for s in programs for n in s.edit.lines}) <= 1
        each = [[s] for s in programs]  # no behaviour known: each program its own
        if one_line and vote and (voted := preferred(context, searcher, each, blind=True)):
            verdict.rule = "the model's choice"
            verdict.chosen, verdict.agreement = [voted[0]], voted[1]
            verdict.caveat = f"{len(programs)} fixes pass; no generated input could compare them"
        elif one_line:
            verdict.chosen = list(programs)
            if len(programs) > 1:
                verdict.caveat = (
                    f"{len(programs)} fixes pass; no generated input could compare them"
                )
        else:
            verdict.ambiguous = list(programs)
        if len(programs) > 1:
            verdict.alternatives = Alternatives(tuple(s.edit.describe() for s in programs))
        return verdict
    keys = {id(s): str(i) for i, s in enumerate(programs)}
    by_key = {keys[id(s)]: s for s in programs}
    for survivor in programs:
        note = check.flaw_note(keys[id(survivor)]) or _once_loop_note(survivor)
        if note:
            verdict.flaws[id(survivor)] = note
    candidates = [s for s in programs if id(s) not in verdict.flaws] or programs
    candidates, crashing = _fewest_crashes(check, keys, candidates, verdict.flaws)
    flawed = [s for s in programs if s not in candidates]  # tried only if the rest fail
    flawed.sort(key=lambda s: s in crashing)  # (a crash where the original returned first)
    groups = check.behaviour_groups([keys[id(s)] for s in candidates])
    verdict.groups = [[by_key[k].edit.describe() for k in group] for group in groups]
    behaviours = [[by_key[k] for k in group] for group in groups]  # the survivors, grouped
    firsts = [group[0] for group in behaviours]
    answers, failures = [group[0] for group in groups], context.evidence.expected.failed_with
    repair = check.only_repair(answers, failures) if len(groups) > 1 else None
    if len(groups) == 1:
        verdict.rule = "one answer"
        verdict.chosen = [by_key[k] for k in groups[0]] + flawed
        if len(groups[0]) > 1:
            lines = sorted({n for k in groups[0] for n in by_key[k].edit.lines})
            verdict.agreement = (
                f"{len(groups[0])} edits at {_lines_text(lines)} behave the same on "
                f"{check.inputs} generated inputs"
            )
    elif repair is not None:
        verdict.rule = "only a repair"
        verdict.caveat, verdict.alternatives = _differ(check, keys, firsts)
        verdict.chosen = [by_key[k] for k in next(g for g in groups if g[0] == repair)]
        kept_errors = check.only_repair(answers) is None  # told apart by their errors
        verdict.agreement = (
            f"of {len(groups)} answers that differ on {check.inputs} generated inputs, the only "
            "one that keeps every result the original returned"
            + (f" and every error it raised but the failing tests' {', '.join(failures)}"
               if kept_errors else
               " (it answers only where the original raised or did not finish)")
        )  # fmt: skip
    elif vote and (choice := preferred(context, searcher, behaviours)) is not None:
        pick, why = choice
        verdict.rule = "the model's choice"
        verdict.caveat, verdict.alternatives = _differ(check, keys, firsts)
        group = next(g for g in behaviours if any(s is pick for s in g))
        verdict.chosen = [pick, *[s for s in group if s is not pick]]
        verdict.agreement = why
    elif len({n for s in firsts for n in s.edit.lines}) <= 1:
        verdict.rule = "one line"
        verdict.chosen = list(candidates)
        verdict.caveat, verdict.alternatives = _differ(check, keys, firsts)
    else:
        verdict.rule = "ambiguous"
        verdict.ambiguous = firsts
        separation = check.separating([keys[id(s)] for s in firsts])
        if separation is not None:
            labels = {keys[id(s)]: s.edit.describe() for s in firsts[:3]}
            verdict.separation = describe_separation(separation, labels)
        verdict.alternatives = _alternatives(separation, keys, firsts)
    return verdict


def _once_loop_note(survivor: Survivor) -> str:
    """The flaw of a survivor whose code keeps a loop that runs at most once (once_loops.py):
    it passes by what the loop's first pass does; one that runs the loop goes first."""
    if not loops_once(survivor.edit.code):
        return ""
    return "keeps a loop that runs at most once (its body ends in a return, break or raise)"


def _fewest_crashes(
    check: CrossCheck, keys: dict[int, str], candidates: list[Survivor], notes: dict[int, str]
) -> tuple[list[Survivor], list[Survivor]]:
    """(those of `candidates` that crash least often where another one returns normally, the
    others), each other's note added to `notes`, when they all edit one line. Why, whatever
    the original did there: of two fixes that pass the same tests, a reviewer takes the one that
    also answers a short input over the one that still indexes past its end (a crash is an
    exception the function's own code does not raise on purpose); the smallest edit was taken
    before. Fixes at several lines that disagree are left undecided, as before: there a crash
    is weaker evidence than a test, and the one that never raises can be as wrong as the rest
    (measured on the search's dev runs)."""
    if len(candidates) < 2 or len({n for s in candidates for n in s.edit.lines}) > 1:
        return candidates, []  # at several lines, disagreeing fixes stay undecided
    found = {}
    for survivor in candidates:
        others = [keys[id(o)] for o in candidates if o is not survivor]
        on_purpose = raised_on_purpose(survivor.edit.code)
        found[id(survivor)] = check.crashes(keys[id(survivor)], others, on_purpose)
    fewest = min(len(crashes) for crashes in found.values())
    steadier = [s for s in candidates if len(found[id(s)]) == fewest]
    crashing = [s for s in candidates if len(found[id(s)]) > fewest]
    for survivor in crashing:
        notes[id(survivor)] = check.crash_note(keys[id(survivor)], found[id(survivor)])
    return steadier, crashing


def raised_on_purpose(code: str) -> set[str]:
    """The exception names `code` raises itself (`raise KeyError(...)`; with a bare `raise`, the
    ones its handlers catch): those are answers, not crashes."""
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            names.add(_name(node.exc.func if isinstance(node.exc, ast.Call) else node.exc))
        elif isinstance(node, ast.ExceptHandler) and node.type is not None and _reraises(node):
            types = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            names.update(_name(t) for t in types)
    return names - {""}


def _reraises(handler: ast.ExceptHandler) -> bool:
    """A handler that lets what it caught go on (`raise` alone)."""
    return any(isinstance(n, ast.Raise) and n.exc is None for n in ast.walk(handler))


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def preferred(
    context: SearchContext,
    searcher: SearchRunner,
    groups: Sequence[Sequence[Survivor]],
    *,
    blind: bool = False,
) -> tuple[Survivor, str] | None:
    """The survivor the session's preference (the model's vote) picks, each group a different
    behaviour; None without a preference or a pick. `blind`: no generated inputs could run,
    so an answer that is no survivor matches none."""
    if context.prefer is None or len(groups) < 2:
        return None

    def match(codes: Sequence[str]) -> list[int | None]:
        """Each text's group: the one whose first survivor it agrees with on every generated
        input, when exactly one does (a text that does not run matches none)."""
        if blind:
            return [None] * len(codes)
        firsts: list[str | Edit] = [group[0].edit for group in groups]
        check = on_generated_inputs(context, searcher, [*firsts, *codes])
        if not gives_evidence(check):
            return [None] * len(codes)
        found: list[int | None] = []
        for j in range(len(codes)):
            key = str(len(firsts) + j)
            runs = bool(check.outcomes(key))
            hits = [i for i in range(len(firsts)) if runs and check.agree(key, str(i))]
            found.append(hits[0] if len(hits) == 1 else None)
        return found

    found = context.prefer(groups, match)
    if found is None or not any(found[0] is s for group in groups for s in group):
        return None
    return found


def _differ(
    check: CrossCheck, keys: dict[int, str], firsts: Sequence[Survivor]
) -> tuple[str, Alternatives]:
    """`2 fixes pass; they differ on f(0): ...`: the answers one of which a rule chose, as the
    caveat says it and structured."""
    separation = check.separating([keys[id(s)] for s in firsts])
    alternatives = _alternatives(separation, keys, firsts)
    if separation is None:
        return f"{len(firsts)} fixes pass and differ", alternatives
    labels = {keys[id(s)]: s.edit.describe() for s in firsts[:3]}
    caveat = f"{len(firsts)} fixes pass; they differ {describe_separation(separation, labels)}"
    return caveat, alternatives


def _alternatives(
    separation: Separation | None, keys: dict[int, str], firsts: Sequence[Survivor]
) -> Alternatives:
    """The answers that differ, each one's result on the input that tells them apart."""
    edits = tuple(s.edit.describe() for s in firsts)
    if separation is None:
        return Alternatives(edits)
    results = tuple(separation.results.get(keys[id(s)], "") for s in firsts)
    return Alternatives(edits, separation.call, results)


def _lines_text(lines: Sequence[int]) -> str:
    if len(lines) == 1:
        return f"line {lines[0]}"
    return "lines " + ", ".join(str(n) for n in lines[:-1]) + f" and {lines[-1]}"
