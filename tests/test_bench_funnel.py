"""The repair funnel (bench/funnel.py): from a case's two versions and its sessions'
transcripts to how far a candidate like the upstream fix got, and the report's table."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from selfdebug.bench.datasets import Problem
from selfdebug.bench.funnel import case_row, funnel_report, upstream_of, versions
from selfdebug.bench.real_cases import RealCase
from selfdebug.bench.repair import write_report
from selfdebug.bench.repair_report import ProblemOutcome
from selfdebug.server.engine.answers.candidate import program_hash
from selfdebug.server.engine.target import locate

# the fix: line 7 returns `high`; its docstring changed too (line 2), which is no place
BUGGY = '''def clamp(x, low, high):
    """Keep x within [low, high]."""
    if x < low:
        return low
    # above the range
    if x > high:
        return low
    return x
'''
FIXED = BUGGY.replace("[low, high].", "[low, high], both ends included.").replace(
    "        return low\n    return x", "        return high\n    return x"
)
FIX_LINE = 7
UPSTREAM = program_hash(locate(FIXED, "clamp").code)
WRONG = program_hash(BUGGY.replace("x > high", "x >= high"))
OTHER = program_hash(BUGGY.replace("x < low", "x <= low"))


def localization(*lines: int) -> dict:
    return {"event": "localization", "lines": [{"line": n, "score": 1.0} for n in lines]}


def session(*events: dict, qualname: str = "clamp") -> list[dict]:
    return [{"event": "session_start", "qualname": qualname}, *events]


def judged(*rows: list) -> dict:
    return {"event": "judged", "candidates": [list(r) for r in rows]}


def outcome(**fields) -> ProblemOutcome:
    return ProblemOutcome(**{"mode": "search", "id": "mini/clamp", "source": "mini", **fields})


def test_the_fix_s_places_skip_its_docstring_and_an_insertion_sits_between_two_lines():
    upstream = upstream_of(BUGGY, FIXED, "clamp")
    assert upstream.places == ((FIX_LINE,),)  # not the docstring's line 2
    assert upstream.key == UPSTREAM
    blocks = upstream.blocks
    # the function's body, each `if`'s own body: three blocks
    assert blocks[3] == blocks[6] == blocks[8] != blocks[4]
    assert blocks[7] not in (blocks[4], blocks[8])
    inserted = BUGGY.replace("    return x", "    x = int(x)\n    return x")
    assert upstream_of(BUGGY, inserted, "clamp").places == ((7, 8),)


def test_a_chosen_fix_like_the_upstream_one_is_ranked_and_named_by_its_sample():
    upstream = upstream_of(BUGGY, FIXED, "clamp")
    events = session(
        localization(6, 7, 3, 8),
        judged([WRONG, 6, "comparison", "fails"], [UPSTREAM, 7, "return-value", "chosen"]),
    )
    row = case_row(outcome(has_candidate=True, verdict="correct"), upstream, [events], 1)
    assert (row.function_rank, row.block_rank, row.line_rank) == (1, 2, 2)
    assert (row.generated_by, row.sample) == ("edit search", "edit 2 of 2 (return-value)")
    assert row.survived and row.chosen and row.lost_at == "chosen"


def test_each_stage_an_unfixed_case_is_lost_at():
    upstream = upstream_of(BUGGY, FIXED, "clamp")
    ranked = localization(7, 6)

    def stage(*events: dict, **fields) -> tuple[str, str]:
        row = case_row(outcome(**fields), upstream, [session(*events)] if events else [], 1)
        return row.lost_at, row.why

    model = "the model at line 7 (sample 3 of 8)"
    survived = judged([UPSTREAM, 7, model, "survived"], [OTHER, 3, "comparison", "chosen"])
    assert stage(ranked, survived, has_candidate=True, verdict="plausible") == (
        "survived but not chosen",
        "",
    )
    lost = stage(ranked, judged([UPSTREAM, 7, "return-value", "untried"]))
    assert lost == ("generated but refused by the judge", "not tried (the runs stopped after "
                    "enough survivors)")  # fmt: skip
    refused = {"event": "search_refused", "candidates": [[UPSTREAM, 7, model]]}
    assert stage(ranked, refused)[0] == "generated but refused by the judge"
    assert stage(ranked, judged([OTHER, 7, "comparison", "fails"])) == (
        "not generated",
        "none like it among the 1 candidates at its lines",
    )
    # ranked below line 7's top ten, and no candidate there: never looked at
    assert stage(localization(3, 4), judged([OTHER, 3, "comparison", "fails"]))[0] == (
        "not localized"
    )
    # a transcript from before the `judged` event: how far it got is not known
    assert stage(ranked, {"event": "search", "tried": 3}) == (
        "",
        "ranked; the candidates were not recorded",
    )
    assert stage(stop_reason="no_tests") == (
        "not localized",
        "no session on the case's function (no_tests)",
    )


def test_a_model_rewrite_like_the_upstream_fix_is_found_by_its_code():
    upstream = upstream_of(BUGGY, FIXED, "clamp")
    code = locate(FIXED, "clamp").code.replace("    # above the range\n", "")  # same program
    rewrite = {"event": "candidate", "turn": 2, "index": 0, "ok": True, "code": code}
    row = case_row(outcome(), upstream, [session(localization(7), rewrite)], 1)
    assert (row.generated_by, row.sample) == ("model rewrite", "turn 2, sample 1")
    assert row.lost_at == "generated but refused by the judge"


def test_a_quixbugs_like_run_gets_its_funnel_in_the_report_files(tmp_path: Path):
    problem = Problem("mini/clamp", "mini", "clamp", BUGGY, FIXED, "", "", "visible_tests")
    transcript = tmp_path / "transcripts" / "search" / "mini__clamp.jsonl"
    transcript.parent.mkdir(parents=True)
    events = session(localization(7), judged([UPSTREAM, 7, "return-value", "chosen"]))
    transcript.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    done = outcome(has_candidate=True, verdict="correct", visible_passed=1, visible_total=1,
                   hidden_passed=2, hidden_total=2)  # fmt: skip
    report = write_report(tmp_path, [done], ["search"], {"max_turns": 1}, 1, [problem])
    (row,) = report["funnel"]["rows"]
    assert (row["line_rank"], row["lost_at"]) == (1, "chosen")
    assert report["funnel"]["counts"] == {"search": {"chosen": 1}}
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "| mini/clamp | 1 | 1 | 1 | edit search / edit 1 of 1 (return-value) | yes | yes " in (
        markdown
    )
    assert "search: not localized 0, not generated 0, " in markdown
    assert json.loads((tmp_path / "report.json").read_text())["funnel"]["rows"][0]["chosen"]


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def test_a_real_case_s_versions_come_from_its_fix_commit_and_bug_patch(tmp_path: Path):
    repo = tmp_path / "repos" / "mini"
    (repo / "pkg").mkdir(parents=True)
    _git(repo, "init", "--quiet")
    (repo / "pkg" / "clamp.py").write_text(FIXED, encoding="utf-8")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fix")
    commit = _git(repo, "rev-parse", "HEAD").strip()
    (repo / "pkg" / "clamp.py").write_text(BUGGY, encoding="utf-8")
    patch = _git(repo, "diff")
    _git(repo, "checkout", "--quiet", ".")
    case = RealCase("mini/clamp", "o/mini", "MIT", "mini", commit, "pkg/clamp.py::clamp",
                    ("tests",), patch)  # fmt: skip
    assert versions(case, tmp_path / "repos") == (BUGGY, FIXED, "clamp")
    # the walk from a failure: one transcript per session, the case's function's read
    walk = tmp_path / "transcripts" / "search" / "mini__clamp"
    walk.mkdir(parents=True)
    searched = judged([OTHER, 3, "comparison", "fails"])
    sessions = {
        1: session(localization(3), qualname="other"),
        2: session(localization(7), searched),
    }
    for number, events in sessions.items():
        text = "".join(json.dumps(e) + "\n" for e in events)
        (walk / f"session-{number}.jsonl").write_text(text, encoding="utf-8")
    walked = outcome(from_failure_test="t::test", suspect_rank=2, repaired="pkg/clamp.py::clamp")
    funnel = funnel_report([walked], [case], tmp_path / "transcripts", tmp_path / "repos")
    (row,) = funnel["rows"]
    assert (row["function_rank"], row["line_rank"], row["lost_at"]) == (2, 1, "not generated")
    # without the checkouts the upstream fix is unknown, and said so
    (unknown,) = funnel_report([walked], [case], tmp_path / "transcripts", None)["rows"]
    assert unknown["lost_at"] == "" and unknown["why"].startswith("upstream fix unknown")
