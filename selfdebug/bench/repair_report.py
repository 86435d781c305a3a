"""Turn the repair benchmark's per-problem results into the report: JSON, a markdown table, a plot.

Kept apart from the runner loop so a report can be rebuilt from any `results.jsonl` (a finished,
interrupted or merged run) without running anything.

Scoring words used everywhere:
- fixed (visible): a proposed candidate passes every visible test (what the engine could see).
- fixed (hidden): it passes the visible tests AND every hidden test: the honest number.
- plausible but wrong: passes the visible tests, fails some hidden test.
- not fixed: no candidate, or the candidate fails a visible test.

Verdicts of the strict judge (judge.py), one per candidate:
- correct: passes every judge test AND is the reference fix's code, or behaves like the reference
  on every call the tests make to the function and on generated inputs;
- plausible: passes every judge test, behaves differently somewhere (one differing call kept),
  or its behaviour could not be compared ("behaviour not checked");
- wrong: fails a judge test (the visible ones included).
fixed (hidden) = correct + plausible.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from selfdebug.bench.funnel import funnel_markdown

PLOT_FILE = "fixes_by_turn.png"


@dataclass
class ProblemOutcome:
    """One (mode, problem) result: one line of results.jsonl."""

    mode: str
    id: str
    source: str
    stop_reason: str = ""
    turns: int = 0
    fixed_at_turn: int | None = None
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    session_seconds: float = 0.0  # the engine's own count (DebugResult.seconds)
    model_seconds: float = 0.0
    wall_seconds: float = 0.0  # the harness's clock around run_session
    scoring_seconds: float = 0.0
    has_candidate: bool = False
    visible_passed: int = 0
    visible_total: int = 0
    hidden_passed: int = 0
    hidden_total: int = 0
    scoring_error: str = ""  # the scoring run's run-level error (collection error...)
    error: str = ""  # DebugResult.error: a backend/runner error that ended the session
    # Model calls that gave no answer (stalled, past a deadline, failed), each of which ended its
    # turn and not the session: "turn 1: the model call stalled after 40 s: ..."
    failed_calls: list[str] = field(default_factory=list)
    harness_error: str = ""  # the harness itself failed: not a result, retried on resume
    diff: str = ""
    found_by: str = ""  # "edit search at line 7" when the search found the proposed fix
    # Real-bug cases (docs/bench/real): no tests named, so what discovery found is a result too.
    real: bool = False
    tests_found: int = 0  # tests discovery chose for the session
    found_tests: list[str] = field(default_factory=list)  # their node ids (first 50)
    failing_found: bool = False  # one of them failed on the bug (else nothing to go on)
    discovery_seconds: float = 0.0
    discovery_note: str = ""  # how the tests were chosen, or why none was (discovery's line)
    # The strict judge (judge.py): "correct" / "plausible" / "wrong"; "" for no candidate, or a
    # result scored before the judge existed (`bench rejudge` fills it in).
    verdict: str = ""
    verdict_how: str = ""  # "same code as the reference", "same behaviour on 412 calls ..."
    differs_on: str = ""  # a plausible one's differing call and what each version did there
    # "From the failure" form (real_from_failure.py): given only this failing test.
    from_failure_test: str = ""
    suspect_rank: int | None = None  # where the case's function ranked (None: not ranked)
    evidence_rank: int | None = None  # ... once the sessions' edits counted (ranked_by_evidence)
    suspects_tried: int = 0  # sessions run, best suspect first
    repaired: str = ""  # the function the reported session worked on (file::qualname)

    @property
    def fixed_visible(self) -> bool:
        return (
            self.has_candidate
            and not self.scoring_error
            and self.visible_total > 0
            and self.visible_passed == self.visible_total
        )

    @property
    def fixed_hidden(self) -> bool:
        return (
            self.fixed_visible and self.hidden_total > 0 and self.hidden_passed == self.hidden_total
        )

    @property
    def plausible_but_wrong(self) -> bool:
        return self.fixed_visible and not self.fixed_hidden

    @property
    def fix_source(self) -> str:
        """Which step wrote the candidate: "search" (the edit search), "model local edit"
        (model_edits/: a sampled hole), "model rewrite" (a whole-function turn); "" for none."""
        if not self.has_candidate:
            return ""
        if not self.found_by:
            return "model rewrite"
        return "model local edit" if self.found_by.startswith("the model") else "search"

    @property
    def judged(self) -> str:
        """The strict verdict: "wrong" for any candidate that fails a judge test (known without
        the judge), the judge's word for one that passes them all, "" for no candidate or an
        unjudged pass."""
        if not self.has_candidate:
            return ""
        if not self.fixed_hidden:
            return "wrong"
        return self.verdict if self.verdict in ("correct", "plausible") else ""

    def record_session(self, result: Any) -> None:
        """Copy what a finished session (a DebugResult) says into this outcome: one place for
        the benchmark problems and the real-repository cases."""
        self.stop_reason = result.stop_reason
        self.turns = result.turns
        self.fixed_at_turn = result.fixed_at_turn
        self.model_calls = result.model_calls
        self.prompt_tokens = result.prompt_tokens
        self.completion_tokens = result.completion_tokens
        self.session_seconds = round(result.seconds, 3)
        self.model_seconds = round(result.model_seconds, 3)
        self.error = result.error
        self.failed_calls = [call.describe() for call in result.failed_calls]
        self.diff = result.diff[:4000]
        self.found_by = result.found_by
        self.has_candidate = result.fixed_file is not None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProblemOutcome:
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass
class ModeStats:
    mode: str
    problems: int
    fixed_visible: int
    fixed_hidden: int
    plausible_but_wrong: int
    not_fixed: int
    # The strict judge's verdicts over the candidates (judge.py); correct + plausible +
    # unjudged = fixed_hidden; unjudged: passes scored before the judge existed.
    correct: int
    plausible: int
    wrong: int
    unjudged: int
    harness_errors: int
    mean_turns: float
    model_calls_per_problem: float
    prompt_tokens_per_problem: float
    completion_tokens_per_problem: float
    # tokens spent over ALL problems of the mode divided by the problems fixed (hidden): the cost
    # of one honest fix. None when nothing was fixed.
    prompt_tokens_per_fix: float | None
    completion_tokens_per_fix: float | None
    wall_seconds_per_problem: float
    wall_seconds_total: float
    model_share_of_wall: float | None  # model seconds / session seconds, summed
    # What a mode's model time buys: fixes (hidden) per minute spent in model calls, and per
    # minute of wall time; how `auto`'s later steps are judged (docs/MODES.md).
    model_minutes_total: float = 0.0
    fixes_per_model_minute: float | None = None
    fixes_per_wall_minute: float | None = None
    # Fixes the edit search found (mode `search`, and the search step of `auto`), counted apart:
    # overfitting to the visible tests is the known failure of such search.
    search_plausible: int = 0  # search fixes that pass the visible tests
    search_plausible_but_wrong: int = 0  # ... and fail a hidden one
    # per source (ProblemOutcome.fix_source): {"correct": n, "plausible": n, "wrong": n}
    by_fix_source: dict[str, dict[str, int]] = field(default_factory=dict)
    fixes_by_turn: dict[int, int] = field(default_factory=dict)  # hidden fixes per turn
    stop_reasons: dict[str, int] = field(default_factory=dict)
    failed_calls: int = 0  # model calls that gave no answer, over all problems
    problems_with_failed_calls: int = 0


FIX_SOURCES = ("search", "model local edit", "model rewrite")


def _fix_turn(outcome: ProblemOutcome) -> int:
    return outcome.fixed_at_turn if outcome.fixed_at_turn is not None else outcome.turns


def mode_stats(mode: str, outcomes: list[ProblemOutcome]) -> ModeStats:
    n = len(outcomes)
    fixed = [o for o in outcomes if o.fixed_hidden]

    def mean(values: list[float]) -> float:
        return round(sum(values) / len(values), 2) if values else 0.0

    def per_fix(total: int) -> float | None:
        return round(total / len(fixed), 1) if fixed else None

    session_seconds = sum(o.session_seconds for o in outcomes)
    model_minutes = sum(o.model_seconds for o in outcomes) / 60
    wall_minutes = sum(o.wall_seconds for o in outcomes) / 60
    return ModeStats(
        mode=mode,
        problems=n,
        fixed_visible=sum(o.fixed_visible for o in outcomes),
        fixed_hidden=len(fixed),
        plausible_but_wrong=sum(o.plausible_but_wrong for o in outcomes),
        not_fixed=sum(not o.fixed_visible for o in outcomes),
        correct=sum(o.judged == "correct" for o in outcomes),
        plausible=sum(o.judged == "plausible" for o in outcomes),
        wrong=sum(o.judged == "wrong" for o in outcomes),
        unjudged=sum(o.fixed_hidden and not o.judged for o in outcomes),
        harness_errors=sum(bool(o.harness_error) for o in outcomes),
        mean_turns=mean([o.turns for o in outcomes]),
        model_calls_per_problem=mean([o.model_calls for o in outcomes]),
        prompt_tokens_per_problem=mean([o.prompt_tokens for o in outcomes]),
        completion_tokens_per_problem=mean([o.completion_tokens for o in outcomes]),
        prompt_tokens_per_fix=per_fix(sum(o.prompt_tokens for o in outcomes)),
        completion_tokens_per_fix=per_fix(sum(o.completion_tokens for o in outcomes)),
        wall_seconds_per_problem=mean([o.wall_seconds for o in outcomes]),
        wall_seconds_total=round(sum(o.wall_seconds for o in outcomes), 1),
        model_share_of_wall=(
            round(sum(o.model_seconds for o in outcomes) / session_seconds, 3)
            if session_seconds > 0
            else None
        ),
        model_minutes_total=round(model_minutes, 1),
        fixes_per_model_minute=round(len(fixed) / model_minutes, 2) if model_minutes else None,
        fixes_per_wall_minute=round(len(fixed) / wall_minutes, 2) if wall_minutes else None,
        search_plausible=sum(o.fixed_visible and o.fix_source == "search" for o in outcomes),
        search_plausible_but_wrong=sum(
            o.plausible_but_wrong and o.fix_source == "search" for o in outcomes
        ),
        by_fix_source={
            source: {
                verdict: sum(o.fix_source == source and o.judged == verdict for o in outcomes)
                for verdict in ("correct", "plausible", "wrong")
            }
            for source in FIX_SOURCES
            if any(o.fix_source == source for o in outcomes)
        },
        fixes_by_turn=dict(sorted(Counter(_fix_turn(o) for o in fixed).items())),
        stop_reasons=dict(Counter(o.stop_reason or "harness_error" for o in outcomes)),
        failed_calls=sum(len(o.failed_calls) for o in outcomes),
        problems_with_failed_calls=sum(bool(o.failed_calls) for o in outcomes),
    )


def build_report(
    outcomes: list[ProblemOutcome], modes: list[str], config: dict[str, Any]
) -> dict[str, Any]:
    """The report.json object: overall stats per mode, and per source when there are several."""
    sources = sorted({o.source for o in outcomes})
    report: dict[str, Any] = {
        "config": config,
        "modes": {
            mode: asdict(mode_stats(mode, [o for o in outcomes if o.mode == mode]))
            for mode in modes
        },
    }
    plausible = [o for o in outcomes if o.judged == "plausible"]
    if plausible:
        report["plausible"] = [
            {"mode": o.mode, "id": o.id, "differs_on": o.differs_on, "verdict_how": o.verdict_how}
            for o in sorted(plausible, key=lambda o: (o.mode, o.id))
        ]
    real = [o for o in outcomes if o.real]
    if real:
        report["cases"] = [case_row(o) for o in sorted(real, key=lambda o: (o.mode, o.id))]
    if len(sources) > 1:
        report["by_source"] = {
            source: {
                mode: asdict(
                    mode_stats(mode, [o for o in outcomes if o.mode == mode and o.source == source])
                )
                for mode in modes
            }
            for source in sources
        }
    return report


def verdict(outcome: ProblemOutcome) -> str:
    """fixed / plausible but wrong / none (no candidate, or it fails a chosen test)."""
    if outcome.fixed_hidden:
        return "fixed"
    if outcome.plausible_but_wrong:
        return "plausible but wrong"
    return "none"


def case_row(outcome: ProblemOutcome) -> dict[str, Any]:
    """One real case's line of the per-case table."""
    return {
        "mode": outcome.mode,
        "id": outcome.id,
        "tests_found": outcome.tests_found,
        "failing_found": outcome.failing_found,
        "verdict": verdict(outcome),
        "judged": outcome.judged,
        "verdict_how": outcome.verdict_how,
        "differs_on": outcome.differs_on,
        "judge": f"{outcome.hidden_passed}/{outcome.hidden_total}" if outcome.has_candidate else "",
        "wall_seconds": outcome.wall_seconds,
        "discovery_seconds": outcome.discovery_seconds,
        "model_calls": outcome.model_calls,
        "found_by": outcome.found_by,
        "stop_reason": outcome.stop_reason,
        "failed_calls": outcome.failed_calls,
        "why_no_failing_test": "" if outcome.failing_found else _why_not_found(outcome),
        "from_failure_test": outcome.from_failure_test,
        "suspect_rank": outcome.suspect_rank,
        "evidence_rank": outcome.evidence_rank,
        "suspects_tried": outcome.suspects_tried,
        "repaired": outcome.repaired,
    }


def _why_not_found(outcome: ProblemOutcome) -> str:
    if outcome.tests_found:
        return f"the {outcome.tests_found} tests found all pass on the bug"
    if outcome.discovery_note:
        return outcome.discovery_note.splitlines()[0][:300]
    return outcome.error[:300] or "no test found"


def _from_failure_table(rows: list[dict[str, Any]]) -> list[str]:
    """Where each case's function ranked for its failing test, which function the proposed
    session worked on, and how it ended; then the counts."""
    lines = [
        "| mode | case | failing test given | rank of the case's function | after the edits "
        "| sessions | function repaired | result | verdict | wall s |",
        "| --- " * 10 + "|",
    ]
    for row in rows:
        rank, moved = (_rank_cell(row.get(key)) for key in ("suspect_rank", "evidence_rank"))
        lines.append(
            f"| {row['mode']} | {row['id']} | {row['from_failure_test']} | {rank} | {moved} "
            f"| {row['suspects_tried']} | {row['repaired'] or '-'} | {row['verdict']} "
            f"| {row['judged'] or '-'} | {row['wall_seconds']:.0f} |"
        )
    for mode in sorted({row["mode"] for row in rows}):
        mine = [r for r in rows if r["mode"] == mode]
        within = ranks_within([r["suspect_rank"] for r in mine])
        after = ranks_within([r.get("evidence_rank") for r in mine])
        fixed = sum(r["verdict"] == "fixed" for r in mine)
        wall = sum(r["wall_seconds"] for r in mine) / len(mine)
        lines.append(
            f"\n{mode}: {len(mine)} cases; the case's function ranked 1st {within[1]}, top 3 "
            f"{within[3]}, top 5 {within[5]}; after the sessions' edits 1st {after[1]}, top 3 "
            f"{after[3]}; fixed {fixed}; {wall:.0f} s a case"
        )
    return lines


def _rank_cell(rank: int | None) -> str:
    return "-" if rank is None else str(rank)


def ranks_within(ranks: list[int | None]) -> dict[int, int]:
    """How many of `ranks` are 1st, in the top 3, in the top 5 (None: not ranked)."""
    return {k: sum(r is not None and r <= k for r in ranks) for k in (1, 3, 5)}


def _case_table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| mode | case | tests found | failing one among them | result | judge passed | verdict "
        "| wall s | discovery s | model calls | found by |",
        "| --- " * 11 + "|",
    ]
    for row in rows:
        lines.append(
            f"| {row['mode']} | {row['id']} | {row['tests_found']} "
            f"| {'yes' if row['failing_found'] else 'no'} | {row['verdict']} | {row['judge']} "
            f"| {_verdict_cell(row)} "
            f"| {row['wall_seconds']:.0f} | {row['discovery_seconds']:.0f} "
            f"| {row['model_calls']} | {row['found_by'] or '-'} |"
        )
    missed = [row for row in rows if not row["failing_found"]]
    if missed:
        lines += ["", "Why no failing test was found:", ""]
        lines += [f"- {row['mode']} {row['id']}: {row['why_no_failing_test']}" for row in missed]
    modes = sorted({row["mode"] for row in rows})
    lines.append("")
    for mode in modes:
        mine = [row for row in rows if row["mode"] == mode]
        fixed = sum(row["verdict"] == "fixed" for row in mine)
        judged = Counter(r.get("judged", "") for r in mine)
        lines.append(
            f"- {mode}: failing test found for {sum(r['failing_found'] for r in mine)} of "
            f"{len(mine)} cases; fixed {fixed} of {len(mine)} ({100 * fixed / len(mine):.0f}%), "
            f"plausible but wrong {sum(r['verdict'] == 'plausible but wrong' for r in mine)}; "
            f"verdicts: correct {judged['correct']}, plausible {judged['plausible']}, "
            f"wrong {judged['wrong']}"
        )
    return lines


def _verdict_cell(row: dict[str, Any]) -> str:
    """`plausible: on f([3, 1]): ...` for a plausible one; the bare verdict otherwise."""
    judged = row.get("judged", "")
    if not judged:
        return "unjudged" if row["verdict"] == "fixed" else "-"
    detail = row.get("differs_on") or (row.get("verdict_how", "") if judged == "plausible" else "")
    return f"{judged}: {_cell(detail)}" if detail else judged


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:g}" if isinstance(value, int) else f"{value:.1f}"


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _mode_table(stats_by_mode: dict[str, dict[str, Any]]) -> list[str]:
    lines = [
        "| mode | problems | fixed (visible) | fixed (hidden) | plausible but wrong | not fixed "
        "| correct | plausible | wrong | mean turns | model calls | prompt tok | completion tok "
        "| prompt tok / fix "
        "| completion tok / fix | wall s / problem | model min | fixes / model-min "
        "| fixes / wall-min |",
        "| --- " * 19 + "|",
    ]
    for mode, s in stats_by_mode.items():
        errors = f" ({s['harness_errors']} harness errors)" if s["harness_errors"] else ""
        lines.append(
            f"| {mode} | {s['problems']}{errors} | {s['fixed_visible']} | **{s['fixed_hidden']}** "
            f"| {s['plausible_but_wrong']} | {s['not_fixed']} | {_judged(s, 'correct')} "
            f"| {_judged(s, 'plausible')} | {s.get('wrong', '-')} | {_fmt(s['mean_turns'])} "
            f"| {_fmt(s['model_calls_per_problem'])} | {_fmt(s['prompt_tokens_per_problem'])} "
            f"| {_fmt(s['completion_tokens_per_problem'])} | {_fmt(s['prompt_tokens_per_fix'])} "
            f"| {_fmt(s['completion_tokens_per_fix'])} | {_fmt(s['wall_seconds_per_problem'])} "
            f"| {_fmt(s.get('model_minutes_total'))} | {_rate(s.get('fixes_per_model_minute'))} "
            f"| {_rate(s.get('fixes_per_wall_minute'))} |"
        )
    return lines


def _judged(stats: dict[str, Any], key: str) -> str:
    """A verdict count; `+N unjudged` when some passes were scored before the judge existed."""
    if key not in stats:
        return "-"
    unjudged = stats.get("unjudged", 0)
    return (
        f"{stats[key]} (+{unjudged} unjudged)"
        if unjudged and key == "plausible"
        else str(stats[key])
    )


def _plausible_list(outcomes_rows: list[dict[str, Any]]) -> list[str]:
    return [
        f"- {row['mode']} {row['id']}: {_cell(row['differs_on'] or row['verdict_how'])}"
        for row in outcomes_rows
    ]


def _turn_table(stats_by_mode: dict[str, dict[str, Any]], max_turns: int) -> list[str]:
    turns = range(0, max_turns + 1)
    lines = [
        "| mode | " + " | ".join(f"turn {t}" for t in turns) + " |",
        "| --- " * (len(turns) + 1) + "|",
    ]
    for mode, s in stats_by_mode.items():
        by_turn = {int(k): v for k, v in s["fixes_by_turn"].items()}
        lines.append(f"| {mode} | " + " | ".join(str(by_turn.get(t, 0)) for t in turns) + " |")
    return lines


def _coverage_note(report: dict[str, Any]) -> list[str]:
    coverage = report.get("coverage")
    if not coverage or coverage["done"] >= coverage["planned"]:
        return []
    return [
        f"**Incomplete run: {coverage['done']} of {coverage['planned']} (mode, problem) pairs "
        "done** (resume with the same command to finish)."
    ]


def _last_turn(report: dict[str, Any], default: int) -> int:
    """The configured max turns, or a later turn some fix was found in (a merged report)."""
    turns = [int(t) for stats in report["modes"].values() for t in stats["fixes_by_turn"]]
    return max([int(report["config"].get("max_turns", default)), *turns])


def render_markdown(report: dict[str, Any]) -> str:
    config = report["config"]
    max_turns = _last_turn(report, 0)
    lines = [
        f"## Repair benchmark: {config.get('backend_name', '?')}",
        "",
        f"Datasets: {', '.join(config.get('datasets', []))}; max turns {config.get('max_turns')}, "
        f"samples {config.get('samples')}, test timeout {config.get('test_timeout_s')} s.",
        f"Visible tests shown to the model: {config.get('visible_policy', '')}",
        "fixed (hidden) = passes the visible and every hidden test; plausible but wrong = passes "
        "the visible tests, fails a hidden one. Tokens per fix = all tokens of the mode / fixes.",
        "Verdicts per candidate: correct = passes every judge test and is the reference fix's "
        "code, or behaves like the reference on every call the tests make and on generated "
        "inputs; plausible = passes them but behaves differently (the differing call is listed), "
        "or could not be compared (behaviour not checked); wrong = fails a judge test. "
        "correct + plausible = fixed (hidden).",
        *_coverage_note(report),
        "",
        *_mode_table(report["modes"]),
        "",
        "### Fixes (hidden) by the turn they were found",
        "",
        *_turn_table(report["modes"], max_turns),
    ]
    sourced = {m: s for m, s in report["modes"].items() if s.get("by_fix_source")}
    if sourced:
        lines += [
            "",
            "### Candidates by source: correct / plausible / wrong",
            "",
            "| mode | " + " | ".join(FIX_SOURCES) + " |",
            "| --- " * (len(FIX_SOURCES) + 1) + "|",
        ]
        for mode, stats in sourced.items():
            cells = []
            for source in FIX_SOURCES:
                counts = stats["by_fix_source"].get(source)
                cells.append(
                    " / ".join(str(counts[v]) for v in ("correct", "plausible", "wrong"))
                    if counts
                    else "-"
                )
            lines.append(f"| {mode} | " + " | ".join(cells) + " |")
    searched = {m: s for m, s in report["modes"].items() if s.get("search_plausible")}
    if searched:
        lines += ["", "### Fixes found by the edit search (no model)", ""]
        for mode, stats in searched.items():
            lines.append(
                f"- {mode}: {stats['search_plausible']} plausible (pass the visible tests), "
                f"{stats['search_plausible_but_wrong']} of them plausible but wrong"
            )
    if report.get("plausible"):
        lines += [
            "",
            "### Plausible fixes (pass the judge tests, differ from the reference)",
            "",
            *_plausible_list(report["plausible"]),
        ]
    if report.get("cases"):
        lines += [
            "",
            "### Per case (real bugs: no tests named; judged by the project's own test files)",
            "",
            *_case_table(report["cases"]),
        ]
    from_failure = [r for r in report.get("cases", []) if r.get("from_failure_test")]
    if from_failure:
        lines += ["", "### From the failure (given only the failing test)", ""]
        lines += _from_failure_table(from_failure)
    if report.get("funnel", {}).get("rows"):
        lines += ["", *funnel_markdown(report["funnel"])]
    lines += ["", "### How the sessions ended", ""]
    for mode, stats in report["modes"].items():
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(stats["stop_reasons"].items()))
        failed = stats.get("failed_calls", 0)
        if failed:  # each ended its turn, not the session
            reasons += (
                f"; {failed} failed model call(s) in {stats['problems_with_failed_calls']} "
                "problem(s)"
            )
        lines.append(f"- {mode}: {reasons or '-'}")
    for source, stats_by_mode in report.get("by_source", {}).items():
        lines += ["", f"### {source}", "", *_mode_table(stats_by_mode)]
    return "\n".join(lines) + "\n"


def plot_fixes_by_turn(report: dict[str, Any], path: Path) -> Path:
    """Cumulative problems fixed (hidden tests) against the debugging turn, one line per mode."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    max_turns = _last_turn(report, 1)
    first = 0 if any("0" in map(str, s["fixes_by_turn"]) for s in report["modes"].values()) else 1
    turns = list(range(first, max(max_turns, first) + 1))
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for mode, stats in report["modes"].items():
        by_turn = {int(k): v for k, v in stats["fixes_by_turn"].items()}
        running, cumulative = 0, []
        for turn in turns:
            running += by_turn.get(turn, 0)
            cumulative.append(running)
        axes.step(turns, cumulative, where="post", marker="o", label=f"{mode} ({running})")
    problems = max((s["problems"] for s in report["modes"].values()), default=0)
    axes.set_xticks(turns)
    axes.set_ylim(0, max(problems, 1))
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("debugging turn")
    axes.set_ylabel(f"problems fixed, hidden tests (of {problems})")
    axes.set_title(f"Fixes by turn: {report['config'].get('backend_name', '')}")
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
