"""The repair funnel of each bench case (issue 53): how far the upstream fix got.

Per case and mode: the rank of the upstream fix's place among the places tried (its function
among the suspects, its block and its first changed line among the search's suspicious lines);
whether a candidate making the upstream fix's program was generated (`program_hash`: the
program with formatting, comments and docstrings aside), by which generator and which sample;
whether it survived the judge (passed the chosen tests and the wider-test guard) and was chosen.
The stage it got to is one of STAGES. A chosen fix the strict judge calls correct (the
upstream's code or behaviour, bench/judge.py) counts as chosen even when its code differs.

Read from the sessions' transcripts (OUT/transcripts/MODE/CASE.jsonl, or CASE/session-N.jsonl
for the walk from a failure: `localization`, `judged`, `search_refused`, the model's
`candidate`s) and the case's two versions (real cases: the fix commit in the checkout, and it
with `bug.patch`; QuixBugs/HumanEvalFix: the record's fixed and buggy code), when the report
is written: `--report-only` gives it to any run whose transcripts are kept.
"""

from __future__ import annotations

import ast
import difflib
import re
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from selfdebug.bench.datasets import Problem
from selfdebug.bench.real_cases import CaseError, RealCase, checkout_path
from selfdebug.server.engine.answers.candidate import program_hash
from selfdebug.server.engine.target import TargetFunction, TargetNotFound, locate
from selfdebug.server.engine.transcript import read_transcript

STAGES = (
    "not localized",
    "not generated",
    "generated but refused by the judge",
    "survived but not chosen",
    "chosen",
)
# how far a generated candidate got, best last: the best match of the upstream fix is shown
_RESULTS = ("not recorded", "untried", "refused", "fails", "breaks wider", "survived", "chosen")
_WHY = {
    "untried": "not tried (the runs stopped after enough survivors)",
    "refused": "refused: it writes a failing test's expected value in (overfitting)",
    "fails": "fails a chosen or wider test",
    "breaks wider": "breaks a wider test that passed before",
    "not recorded": "not recorded (a model rewrite's tests are not kept per sample)",
}


class Outcome(Protocol):
    """What the funnel reads of a bench result (repair_report.ProblemOutcome)."""

    mode: str
    id: str
    has_candidate: bool
    verdict_how: str
    stop_reason: str
    harness_error: str
    from_failure_test: str
    suspect_rank: int | None
    repaired: str

    @property
    def judged(self) -> str: ...
    @property
    def fix_source(self) -> str: ...


@dataclass(frozen=True)
class Upstream:
    """The upstream fix as the funnel needs it, in the buggy file's line numbers."""

    key: str  # program_hash of the fixed function
    places: tuple[tuple[int, ...], ...]  # per change, the lines it touches; first change first
    blocks: Mapping[int, int]  # line -> its block (the innermost statement list holding it)


@dataclass(frozen=True)
class Generated:
    """One candidate a session recorded."""

    key: str
    line: int | None
    generator: str  # "edit search", "model local edit", "model rewrite"
    sample: str  # "edit 12 (swap-operands)", "sample 3 of 8", "turn 2, sample 1"
    result: str  # one of _RESULTS


@dataclass
class FunnelRow:
    mode: str
    id: str
    function_rank: int | None = None
    block_rank: int | None = None
    line_rank: int | None = None
    fix_line: int | None = None  # the first line the upstream fix changes (buggy file)
    generated_by: str = ""
    sample: str = ""
    survived: bool | None = None  # None: nothing like the upstream fix was generated
    chosen: bool = False
    lost_at: str = ""  # one of STAGES; "" when the upstream fix is unknown
    why: str = ""
    candidates: int = 0  # every candidate the sessions recorded


def upstream_of(buggy: str, fixed: str, qualname: str) -> Upstream:
    """The places the upstream fix changes (difflib between the two files, inside the buggy
    function; docstring, comment and blank lines alone do not count), and the buggy function's
    blocks. An insertion's place is the lines on both sides of it."""
    target, fix = locate(buggy, qualname), locate(fixed, qualname)
    noise, fix_noise = _noise(buggy, target), _noise(fixed, fix)
    inside = range(target.start_line + 1, target.end_line + 1)
    places: list[tuple[int, ...]] = []
    every: list[tuple[int, ...]] = []
    matcher = difflib.SequenceMatcher(None, buggy.splitlines(), fixed.splitlines(), False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        lines = tuple(range(i1 + 1, i2 + 1)) if i2 > i1 else (i1, i1 + 1)
        lines = tuple(n for n in lines if n in inside)
        if tag == "equal" or not lines:
            continue
        every.append(lines)
        cosmetic = set(range(i1 + 1, i2 + 1)) <= noise and set(range(j1 + 1, j2 + 1)) <= fix_noise
        if not cosmetic:
            places.append(lines)
    return Upstream(program_hash(fix.code), tuple(places or every), _blocks(target))


def _noise(source: str, target: TargetFunction) -> set[int]:
    """The function's lines that carry no program: blank, comment-only, its docstring's."""
    lines = source.splitlines()
    span = range(target.start_line + 1, min(target.end_line, len(lines)) + 1)
    noise = {n for n in span if not lines[n - 1].strip() or lines[n - 1].strip()[0] == "#"}
    body = _function(target).body
    docstring = body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
    if docstring and isinstance(body[0].value.value, str):  # type: ignore[attr-defined]
        first, last = body[0].lineno, body[0].end_lineno or body[0].lineno
        noise |= {target.start_line + n for n in range(first, last + 1)}
    return noise


def _function(target: TargetFunction) -> ast.FunctionDef | ast.AsyncFunctionDef:
    tree = ast.parse(target.code)
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))


def _blocks(target: TargetFunction) -> dict[int, int]:
    """File line -> block number: the innermost statement list (a body, an else, a handler,
    a finally) whose statements span the line. ast.walk goes outer before inner, so the
    innermost list is the last to claim a line."""
    blocks: dict[int, int] = {}
    ids: dict[tuple[int, str], int] = {}
    for node in ast.walk(_function(target)):
        for name in ("body", "orelse", "finalbody"):
            statements = getattr(node, name, None)
            if not (isinstance(statements, list) and statements):
                continue
            block = ids.setdefault((id(node), name), len(ids))
            for statement in statements:
                for line in range(statement.lineno, (statement.end_lineno or 0) + 1):
                    blocks[target.start_line + line] = block
    return blocks


def read_generated(events: Iterable[Mapping[str, Any]]) -> list[Generated]:
    """Every candidate the events record: the judge's (`judged`: the edit search's and the
    model's local edits; `search_refused`), and the model's rewrites (`candidate`)."""
    found: list[Generated] = []
    for event in events:
        kind = event.get("event")
        if kind == "judged":
            rows = event.get("candidates") or []
            for index, (key, line, who, result) in enumerate(rows):
                found.append(_judged(key, line, str(who), result, index, len(rows)))
        elif kind == "search_refused":
            for key, line, who in event.get("candidates") or []:
                found.append(_judged(key, line, str(who), "refused", None, 0))
        elif kind == "candidate" and event.get("code"):
            result = "refused" if event.get("problem") or not event.get("ok") else "not recorded"
            sample = f"turn {event.get('turn', '?')}, sample {int(event.get('index', 0)) + 1}"
            code = str(event["code"])
            found.append(Generated(program_hash(code), None, "model rewrite", sample, result))
    return found


def _judged(key: str, line: int, who: str, result: str, index: int | None, n: int) -> Generated:
    if who.startswith("the model"):  # samples.py: "the model at line 7 (sample 3 of 8)"
        sample = re.search(r"sample \d+ of \d+", who)
        return Generated(key, line, "model local edit", sample.group(0) if sample else who, result)
    where = f"edit {index + 1} of {n}" if index is not None else "edit"
    return Generated(key, line, "edit search", f"{where} ({who})", result)


def case_row(
    outcome: Outcome,
    upstream: Upstream,
    sessions: Sequence[Sequence[Mapping[str, Any]]],
    function_rank: int | None,
    function: str = "",
) -> FunnelRow:
    """The funnel of one (mode, case) from its function's sessions' events (none: its
    function was never tried). `function`: the case's `path::qualname`, which the walk from a
    failure must have repaired for its fix to be the one offered."""
    row = FunnelRow(outcome.mode, outcome.id, function_rank=function_rank)
    row.fix_line = upstream.places[0][0] if upstream.places else None
    events = [e for session in sessions for e in session]
    generated = read_generated(events)
    row.candidates = len(generated)
    ranked = _ranked_lines(events)
    first = upstream.places[0] if upstream.places else ()
    if ranked is not None:
        row.line_rank = min((ranked.index(n) + 1 for n in first if n in ranked), default=None)
        order = list(dict.fromkeys(upstream.blocks[n] for n in ranked if n in upstream.blocks))
        places = [upstream.blocks[n] for n in first if n in upstream.blocks]
        row.block_rank = min((order.index(b) + 1 for b in places if b in order), default=None)
    tried = {g.line for g in generated}
    changed = {n for place in upstream.places for n in place}
    localized = bool(sessions) and (
        row.line_rank is not None or bool(changed & tried) or not ranked
    )
    like = [g for g in generated if g.key == upstream.key]
    best = max(like, key=lambda g: _RESULTS.index(g.result), default=None)
    offered = outcome.has_candidate and (
        not outcome.from_failure_test or outcome.repaired == function
    )
    if best is not None:
        row.generated_by, row.sample = best.generator, best.sample
        row.survived = best.result in ("survived", "chosen")
        row.chosen = best.result == "chosen" and offered
    if outcome.judged == "correct":  # the chosen fix behaves like the upstream one
        row.chosen = row.survived = True
        row.generated_by = row.generated_by or outcome.fix_source.replace("search", "edit search")
        row.sample = row.sample or "(same behaviour)"
    recorded = any(e.get("event") in ("judged", "candidate") for e in events)
    near = sum(g.line in changed for g in generated) if recorded else -1
    row.lost_at, row.why = _stage(row, best, localized, near, sessions, outcome)
    return row


def _stage(
    row: FunnelRow,
    best: Generated | None,
    localized: bool,
    near: int,
    sessions: Sequence[object],
    outcome: Outcome,
) -> tuple[str, str]:
    if row.chosen:
        return "chosen", outcome.verdict_how
    if row.survived:
        why = "chosen by the judge, not offered" if best and best.result == "chosen" else ""
        return "survived but not chosen", why
    if best is not None:
        return "generated but refused by the judge", _WHY.get(best.result, best.result)
    if sessions and near < 0:  # a transcript from before the judge's `judged` event
        where = "ranked" if localized else "not among the top ten lines"
        return "", f"{where}; the candidates were not recorded"
    if localized:
        return "not generated", f"none like it among the {near} candidates at its lines"
    if sessions:
        return "not localized", "the fix's lines are neither ranked nor edited"
    return "not localized", f"no session on the case's function ({outcome.stop_reason or '-'})"


def _ranked_lines(events: Sequence[Mapping[str, Any]]) -> list[int] | None:
    """The first `localization` event's lines, most suspicious first (the transcript keeps
    the top ten); None when none ranked any (every line is then tried in order)."""
    for event in events:
        if event.get("event") == "localization" and event.get("lines"):
            return [int(line["line"]) for line in event["lines"]]
    return None


def sessions_of(transcripts: Path, outcome: Outcome, qualname: str) -> list[list[Any]]:
    """The events of each session of `outcome` that worked on `qualname`: the one transcript of
    a case, or the walk's (CASE/session-N.jsonl)."""
    stem = outcome.id.replace("/", "__")
    folder = transcripts / outcome.mode
    walk = (folder / stem).glob("session-*.jsonl")
    paths = sorted(walk, key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))
    paths += [p for p in [folder / f"{stem}.jsonl"] if p.is_file()]
    found = []
    for path in paths:
        try:
            events = read_transcript(path)
        except (OSError, ValueError):
            continue
        start = next((e for e in events if e.get("event") == "session_start"), {})
        if start.get("qualname") == qualname:
            found.append(events)
    return found


def versions(case: RealCase | Problem, repos: Path | None) -> tuple[str, str, str]:
    """(buggy source, fixed source, qualname). Raises CaseError when the fix commit cannot be
    read (no --repos)."""
    if isinstance(case, Problem):
        return case.buggy, case.fixed, case.entry_point
    checkout = checkout_path(case, repos)
    fixed = _git(["show", f"{case.commit}:{case.path}"], checkout)
    with tempfile.TemporaryDirectory(prefix="selfdebug-funnel-") as tmp:
        _git(["init", "--quiet"], Path(tmp))
        file = Path(tmp) / case.path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(fixed, encoding="utf-8")
        _git(["apply", "--whitespace=nowarn", "-"], Path(tmp), case.patch)
        buggy = file.read_text(encoding="utf-8")
    return buggy, fixed, case.qualname


def _git(args: list[str], cwd: Path, stdin: str | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, text=True)
    if done.returncode != 0:
        raise CaseError(f"git {args[0]}: {(done.stderr or done.stdout).strip()[:200]}")
    return done.stdout


def funnel_report(
    outcomes: Sequence[Outcome],
    cases: Sequence[RealCase | Problem],
    transcripts: Path,
    repos: Path | None,
) -> dict[str, Any]:
    """report.json's `funnel`: every outcome's row, and per mode the count of each stage."""
    by_id = {case.id: case for case in cases}
    upstreams: dict[str, tuple[Upstream, str] | str] = {}
    rows: list[FunnelRow] = []
    for outcome in sorted(outcomes, key=lambda o: (o.mode, o.id)):
        case = by_id.get(outcome.id)
        if case is None or outcome.harness_error:
            continue
        if case.id not in upstreams:
            try:
                buggy, fixed, qualname = versions(case, repos)
                upstreams[case.id] = (upstream_of(buggy, fixed, qualname), qualname)
            except (CaseError, TargetNotFound, SyntaxError, OSError) as error:
                upstreams[case.id] = f"upstream fix unknown: {error}"
        known = upstreams[case.id]
        if isinstance(known, str):
            rows.append(FunnelRow(outcome.mode, outcome.id, why=known))
            continue
        upstream, qualname = known
        rank = outcome.suspect_rank if outcome.from_failure_test else 1
        function = case.function if isinstance(case, RealCase) else ""
        sessions = sessions_of(transcripts, outcome, qualname)
        rows.append(case_row(outcome, upstream, sessions, rank, function))
    counts = {
        mode: {stage: n for stage in STAGES if (n := sum(r.lost_at == stage for r in mine))}
        for mode in dict.fromkeys(r.mode for r in rows)
        for mine in [[r for r in rows if r.mode == mode]]
    }
    return {"rows": [asdict(r) for r in rows], "counts": counts, "stages": list(STAGES)}


def funnel_markdown(funnel: Mapping[str, Any]) -> list[str]:
    """One table per mode, then its count of each stage."""
    lines = [
        "### Repair funnel (how far a candidate like the upstream fix got)",
        "",
        "Ranks are 1-based: the case's function among the suspects (1 when given), the block "
        "and the first line the upstream fix changes among the search's suspicious lines (the "
        "transcript keeps the top ten). Like the upstream fix: the same program (formatting, "
        "comments, docstrings aside), or a chosen fix the judge calls correct.",
    ]
    for mode in dict.fromkeys(row["mode"] for row in funnel["rows"]):
        mine = [row for row in funnel["rows"] if row["mode"] == mode]
        lines += [
            "",
            f"#### {mode}",
            "",
            "| case | function rank | block rank | line rank | generated by / sample | survived "
            "| chosen | lost at | why |",
            "| --- " * 9 + "|",
        ]
        for r in mine:
            made = f"{r['generated_by']} / {r['sample']}" if r["generated_by"] else "-"
            lines.append(
                f"| {r['id']} | {_cell(r['function_rank'])} | {_cell(r['block_rank'])} "
                f"| {_cell(r['line_rank'])} | {_text(made)} | {_cell(r['survived'])} "
                f"| {_cell(r['chosen'])} | {r['lost_at'] or '-'} | {_text(r['why']) or '-'} |"
            )
        counts = funnel["counts"].get(mode, {})
        lines += ["", f"{mode}: " + ", ".join(f"{s} {counts.get(s, 0)}" for s in STAGES)]
    return lines


def _cell(value: int | bool | None) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "-" if value is None else str(value)


def _text(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:160]
