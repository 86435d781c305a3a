"""The one judge (engine/judge/): candidates from two generators, an edit of the search and
rewrites a model wrote, judged together through the real runner: run on the chosen and wider
tests, ranked, the wider-test guard, the generated-input crosscheck, the winner run afresh."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine.answers.candidate import program_hash
from selfdebug.server.engine.evidence import Evidence
from selfdebug.server.engine.judge.context import SearchContext, SearchSettings
from selfdebug.server.engine.judge.judge import Judge
from selfdebug.server.engine.search.edits import Edit, generate_edits
from selfdebug.server.engine.target import locate
from selfdebug.server.runner import ProjectRunner, RunnerSettings

# `x < limit` should be `x <= limit` (line 4)
SOURCE = """def count_at_most(values, limit):
    kept = 0
    for x in values:
        if x < limit:
            kept += 1
    return kept
"""
CHOSEN_TESTS = """from count import count_at_most


def test_up_to_two():
    assert count_at_most([1, 2, 3], 2) == 2


def test_the_limit_itself():
    assert count_at_most([5], 5) == 1
"""
WIDER_TESTS = """from count import count_at_most


def test_negative_values_count():
    assert count_at_most([-3, 7], 0) == 1
"""
CHOSEN = ["test_count.py::test_up_to_two", "test_count.py::test_the_limit_itself"]
WIDER = ["test_wider.py::test_negative_values_count"]
BUG_LINE = 4


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "countproj"
    root.mkdir()
    (root / "count.py").write_text(SOURCE, encoding="utf-8")
    (root / "test_count.py").write_text(CHOSEN_TESTS, encoding="utf-8")
    (root / "test_wider.py").write_text(WIDER_TESTS, encoding="utf-8")
    return root


def model_rewrite(code: str, before: str, after: str) -> Edit:
    """What a model's rewrite of the function is to the judge: the whole text, as an Edit."""
    return Edit(
        line=BUG_LINE,
        rank=0,
        size=10,
        edit_class="model-rewrite",
        before=before,
        after=after,
        code=code.replace(before, after),
        origin="the model's rewrite (turn 1)",
    )


def test_candidates_of_two_generators_are_ranked_guarded_and_the_winner_verified(project):
    source = SOURCE
    target = locate(source, "count_at_most")
    search_edits = generate_edits(target.code, target.start_line + 1, {BUG_LINE: 0}, limit=50)
    search_fix = next(e for e in search_edits if (e.before, e.after) == ("<", "<="))
    same = model_rewrite(target.code, "x < limit", "limit >= x")  # the fix, spelled otherwise
    breaks_wider = model_rewrite(target.code, "x < limit", "0 < x <= limit")  # drops negatives
    wrong = model_rewrite(target.code, "x < limit", "x > limit")  # fails a chosen test
    events: list[tuple[str, dict]] = []
    with ProjectRunner(project, RunnerSettings(test_timeout_s=10)) as runner:
        file = project / "count.py"
        chosen_before = runner.run(CHOSEN)
        wider_before = runner.run(WIDER)
        assert not chosen_before.all_passed and wider_before.all_passed
        context = SearchContext(
            runner=runner,
            file=file,
            source=source,
            target=target,
            chosen=CHOSEN,
            wider=WIDER,
            chosen_before=chosen_before,
            evidence=Evidence.of(chosen_before),
            wider_before=wider_before,
            cancel=CancelToken(),
            deadline=None,
            run_tests=lambda ids, text, _label: runner.run(ids, overrides={file: text}),
            event=lambda name, **fields: events.append((name, fields)),
            settings=SearchSettings(record_candidates=True),  # as the benchmark asks
        )
        # the model's candidates first: the judge's ranking, not the order given, decides
        judgement = Judge(context).judge([wrong, breaks_wider, same, search_fix])

    assert judgement.search is not None and judgement.search.stop == "exhausted"
    survivors = [s.edit for s in judgement.search.survivors]
    # every candidate that passes the chosen tests, best first: the one that breaks a wider
    # test that passed on the original last; the failing one is none
    assert survivors == [search_fix, same, breaks_wider]
    assert [s.breaks_wider for s in judgement.search.survivors] == [False, False, True]
    # the wider-test guard left the third out; the two left behave alike on generated inputs
    assert [s.edit for s in judgement.ranked] == [search_fix, same]
    rule, agreement = judgement.reasons()
    assert rule == "rule: one answer"
    assert agreement.startswith("2 edits at line 4 behave the same on ")
    assert agreement.endswith(" generated inputs")
    # the smallest is proposed, after a fresh run of the chosen and the wider tests
    assert judgement.fix is not None
    assert judgement.fix.found_by == "edit search at line 4"
    assert judgement.fix.chosen_run.all_passed
    assert judgement.fix.wider_run is not None and judgement.fix.wider_run.all_passed
    assert judgement.fix.candidate.explanation == f"edit search: line 4: `<` -> `<=`; {agreement}"
    assert [name for name, _ in events] == ["search", "crosscheck", "survivors_judged",
                                            "search_verify", "judged"]  # fmt: skip
    # what the benchmark's funnel reads: each candidate's program, line, maker and fate
    (judged,) = [fields for name, fields in events if name == "judged"]
    assert judged["candidates"] == [
        [program_hash(wrong.code), BUG_LINE, wrong.origin, "fails"],
        [program_hash(breaks_wider.code), BUG_LINE, breaks_wider.origin, "breaks wider"],
        [program_hash(same.code), BUG_LINE, same.origin, "survived"],
        [program_hash(search_fix.code), BUG_LINE, search_fix.edit_class, "chosen"],
    ]
    # one program, whatever its spelling: the hash the funnel compares with the upstream fix's
    assert program_hash(search_fix.code) == program_hash("# a comment\n" + search_fix.code)
    assert program_hash(search_fix.code) != program_hash(same.code)
