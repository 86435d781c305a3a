"""The choice among fixes that pass the same tests (engine/judge/verdicts.py): the one that
crashes where another returns normally gives way, whatever the original did there; an exception
a fix raises on purpose is an answer, not a crash. Through the real runner and generated inputs."""

from __future__ import annotations

from pathlib import Path

from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine.evidence import Evidence
from selfdebug.server.engine.judge.context import SearchContext
from selfdebug.server.engine.judge.judge import Judge
from selfdebug.server.engine.judge.verdicts import raised_on_purpose
from selfdebug.server.engine.search.edits import Edit
from selfdebug.server.engine.target import locate
from selfdebug.server.runner import ProjectRunner, RunnerSettings

# the sum of the last two values; the bug reads the third from the end (it also raises on two)
SOURCE = """def last_two_sum(values):
    return values[-1] + values[-3]
"""
TESTS = """from pairs import last_two_sum


def test_three_values():
    assert last_two_sum([1, 2, 3]) == 5
"""
CHOSEN = ["test_pairs.py::test_three_values"]


def rewrite(code: str, after: str, size: int) -> Edit:
    before = "values[-1] + values[-3]"
    code = code.replace(before, after)
    return Edit(line=2, rank=0, size=size, edit_class="model-rewrite", before=before,
                after=after, code=code, origin="a model's rewrite")  # fmt: skip


def test_the_fix_that_answers_a_short_input_is_chosen_over_one_that_crashes(tmp_path: Path):
    (tmp_path / "pairs.py").write_text(SOURCE, encoding="utf-8")
    (tmp_path / "test_pairs.py").write_text(TESTS, encoding="utf-8")
    target = locate(SOURCE, "last_two_sum")
    # both pass the test; the smaller (ranked first) indexes from the front and still raises
    # IndexError on a list of two, as the original did; the other answers there
    from_front = rewrite(target.code, "values[2] + values[1]", size=1)
    from_end = rewrite(target.code, "values[-1] + values[-2]", size=2)
    with ProjectRunner(tmp_path, RunnerSettings(test_timeout_s=10)) as runner:
        before = runner.run(CHOSEN)
        context = SearchContext(
            runner=runner,
            file=tmp_path / "pairs.py",
            source=SOURCE,
            target=target,
            chosen=CHOSEN,
            wider=[],
            chosen_before=before,
            evidence=Evidence.of(before),
            wider_before=None,
            cancel=CancelToken(),
            deadline=None,
            run_tests=lambda ids, text, _label: runner.run(
                ids, overrides={tmp_path / "pairs.py": text}
            ),
        )
        judgement = Judge(context).judge([from_front, from_end])

    assert judgement.fix is not None
    assert judgement.fix.candidate.code == from_end.code
    assert judgement.verdict is not None
    (note,) = judgement.verdict.flaws.values()
    assert note.startswith("raises IndexError on last_two_sum(") and "another fix returns" in note


def test_what_a_fix_raises_itself_is_no_crash():
    code = """def pick(items, key):
    if not items:
        raise ValueError("empty")
    try:
        return items[key]
    except (KeyError, IndexError):
        log(key)
        raise
    except TypeError:
        return None
"""
    assert raised_on_purpose(code) == {"ValueError", "KeyError", "IndexError"}
