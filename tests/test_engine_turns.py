"""Every turn counts (issue 12, items 1, 4 and 6), with a scripted model on the fixture project
and the REAL runner: the model sees its earlier attempts and their results, no prompt is sent
twice, a repeated program is reported and answered by sampling, every all-passing sample goes
through the regression guard, the guard names what broke, and `auto` follows its documented plan
(docs/MODES.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.sumproj import NEGATIVE, ONE, THREE, ZERO, copy_project, make_request, prompt_text

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import run_session
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.runner import ProjectRunner, RunnerSettings

GOOD = (
    "def sum_to(n):\n    total = 0\n    for i in range(1, n + 1):\n        total += i\n"
    "    return total\n"
)
FORMULA = "def sum_to(n):\n    return n * (n + 1) // 2\n"  # passes 3 and 1, breaks -2 (gives 1)
FROM_TWO = (  # 0/2: sum_to(3) == 5, sum_to(1) == 0
    "def sum_to(n):\n    total = 0\n    for i in range(2, n + 1):\n        total += i\n"
    "    return total\n"
)
SQUARE = "def sum_to(n):\n    return n * n\n"  # 1/2: sum_to(1) == 1 only
ZERO_ALWAYS = "def sum_to(n):\n    return 0\n"  # 0/2
MINUS = "def sum_to(n):\n    return -1\n"  # 0/3 on THREE, ONE, ZERO (the original passes ZERO)


def reply(code: str, bug: str = "the range is wrong.") -> str:
    return f"Bug: {bug}\n```python\n{code}```\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory, "turns")


@pytest.fixture(scope="module")
def runner(project):
    with ProjectRunner(project, RunnerSettings(test_timeout_s=10)) as shared:
        yield shared


def prompts(backend: ScriptedBackend) -> list[str]:
    return [prompt_text(backend, index) for index in range(len(backend.requests))]


# -- item 1: memory ----------------------------------------------------------------------------


def test_the_prompt_shows_the_last_two_attempts_with_diff_results_and_verdict(project, runner):
    backend = ScriptedBackend([reply(FROM_TWO), reply(SQUARE), reply(ZERO_ALWAYS), reply(GOOD)])
    result = run_session(make_request(project, max_turns=4), backend, runner=runner)
    assert result.stop_reason == "passed" and result.fixed_at_turn == 4
    sent = prompts(backend)
    assert "[Revised Python #1]" not in sent[0]  # nothing tried yet
    second = sent[1]
    assert "[Revised Python #1]" in second
    # the change against the original function, and what its tests said
    assert "-    for i in range(1, n):\n+    for i in range(2, n + 1):" in second
    assert "[UT Feedback #1] 0/2 tests pass." in second
    assert "`assert sum_to(3) == 6` got 5, expected 6" in second
    fourth = sent[3]
    assert "[Revised Python #1]" not in fourth  # only the last two attempts
    assert "[Revised Python #2]" in fourth and "[Revised Python #3]" in fourth
    assert "+    return 0" in fourth and "[UT Feedback #3] 0/2 tests pass." in fourth
    # why #3 was not kept: the shown version (#2, SQUARE) passed more
    assert "Not kept: it passed fewer tests (0/2) than the version shown above (1/2)." in fourth
    assert "return n * n" in fourth  # SQUARE is the function shown


def test_simple_mode_history_tells_only_that_an_attempt_was_wrong(project, runner):
    backend = ScriptedBackend([reply(FROM_TWO), reply(GOOD)])
    result = run_session(make_request(project, mode="simple"), backend, runner=runner)
    assert result.stop_reason == "passed" and result.fixed_at_turn == 2
    second = prompts(backend)[1]
    assert "[Revised Python #1]" in second and "still wrong" in second
    assert "UT Feedback" not in second and "got 5" not in second


def test_a_repeated_program_is_reported_and_the_model_sampled(project, runner, tmp_path):
    """Before: a candidate passing fewer tests was dropped without a trace, and the next prompt
    was byte-identical to the last one, asked greedily again: three identical turns."""
    transcript = tmp_path / "repeat.jsonl"
    backend = ScriptedBackend([reply(MINUS)])
    request = make_request(project, tests=[THREE, ONE, ZERO], transcript_path=transcript)
    result = run_session(request, backend, runner=runner)
    assert result.stop_reason == "no_improvement" and result.model_calls == 3
    sent = prompts(backend)
    assert len(set(sent)) == len(sent) == 3  # never the same prompt twice
    assert "same program as attempt #1" not in sent[1]
    assert "same program as attempt #1" in sent[2]  # turn 2 gave MINUS again
    first, second, third = backend.requests
    assert (first.temperature, first.seed) == (0.0, 0)  # greedy while nothing repeats
    assert (second.temperature, second.seed) == (0.0, 0)
    assert third.temperature > 0 and third.seed not in (first.seed, second.seed)
    attempts = [e for e in read_transcript(transcript) if e["event"] == "attempt"]
    assert [a["repeat_of"] for a in attempts] == ["", "attempt #1", "attempt #1"]
    # only a session's first call is cold: its answers do not depend on the session before
    assert [r.cold for r in backend.requests] == [True, False, False]
    calls = [e for e in read_transcript(transcript) if e["event"] == "model_call"]
    assert [c["cold"] for c in calls] == [True, False, False]


def test_a_prompt_that_would_repeat_is_reworded_and_sampled(project, runner):
    """Unusable answers leave no attempt; the same rejection twice made the same prompt."""
    backend = ScriptedBackend(["```python\ndef sum_to(n:\n    return n\n```"])  # does not parse
    result = run_session(make_request(project), backend, runner=runner)
    assert result.model_calls == 3 and result.fixed_function is None
    sent = prompts(backend)
    assert len(set(sent)) == 3
    assert "already sent 1 time(s)" in sent[2]
    seeds = [r.seed for r in backend.requests]
    assert backend.requests[2].temperature > 0 and seeds[2] not in seeds[:2]


# -- item 4: vote + guard ----------------------------------------------------------------------


def test_every_all_passing_sample_is_guarded_in_vote_order(project, runner, tmp_path):
    """Both samples pass the chosen tests; the vote cannot tell them apart and ranks FORMULA
    (sample 0) first. Before, only it was guarded, it broke sum_to(-2), and the correct sample
    was thrown away."""
    transcript = tmp_path / "vote.jsonl"
    backend = ScriptedBackend([reply(FORMULA), reply(GOOD)])
    request = make_request(
        project, samples=2, max_turns=1, wider_tests=[ZERO, NEGATIVE], transcript_path=transcript
    )
    result = run_session(request, backend, runner=runner)
    assert result.stop_reason == "passed" and result.success
    assert result.fixed_function == GOOD and result.fixed_at_turn == 1
    assert str(result.wider_after) == "2/2" and result.model_calls == 1
    events = read_transcript(transcript)
    guards = [e["broken"] for e in events if e["event"] == "guard"]
    assert guards == [[NEGATIVE], []]
    vote = next(e for e in events if e["event"] == "vote")
    assert vote["order"] == [0, 1]


def test_the_regression_note_names_the_broken_wider_test_with_its_values(project, runner):
    backend = ScriptedBackend([reply(FORMULA), reply(GOOD)])
    request = make_request(project, wider_tests=[ZERO, NEGATIVE])
    result = run_session(request, backend, runner=runner)
    assert result.stop_reason == "passed" and result.fixed_at_turn == 2
    second = prompts(backend)[1]
    assert "broke other behaviour" in second
    assert "test_sum_to_negative" in second and "got 1, expected 0" in second
    assert "test_sum_to_zero" not in second  # only what broke is shown
    assert f"Not kept: it passed the tests shown but broke `{NEGATIVE}`." in second


# -- item 6: auto follows its plan -------------------------------------------------------------


def _model_plan_only(project, transcript):
    """auto's whole-function plan alone: no edit search (it would fix sum_to first,
    test_engine_search.py) and no local edits (tests/test_model_edits.py)."""
    return make_request(
        project,
        mode="auto",
        max_turns=5,
        transcript_path=transcript,
        auto_search=False,
        model_edits_s=0,
    )


def test_auto_stops_after_two_whole_function_turns_without_gain(project, runner, tmp_path):
    """docs/MODES.md: after the search and the local edits, `ut`; two turns in a row without
    gain -> the plan is spent and the session ends, turns left or not (`explain` after it did
    not pay); the second turn is shown the first one's real results."""
    transcript = tmp_path / "auto.jsonl"
    backend = ScriptedBackend([reply(FROM_TWO)])  # never gains
    result = run_session(_model_plan_only(project, transcript), backend, runner=runner)
    assert result.stop_reason == "no_improvement" and result.model_calls == 2
    first, second = prompts(backend)
    assert "Find the bug that makes these tests fail" in first
    assert "automatic tracing" not in first  # probe is no longer part of auto
    assert "range(2, n + 1)" in second  # the first answer, with its results, is shown
    events = read_transcript(transcript)
    assert [e["mode"] for e in events if e["event"] == "model_call"] == ["ut", "ut"]
    assert result.mode == "ut"


def test_auto_stays_in_a_mode_while_it_gains(project, runner, tmp_path):
    transcript = tmp_path / "auto.jsonl"
    backend = ScriptedBackend([reply(SQUARE), reply(GOOD)])
    result = run_session(
        _model_plan_only(project, transcript),
        backend,
        runner=runner,
    )  # SQUARE passes 1/2 (a gain: ut again), GOOD all
    assert result.stop_reason == "passed" and result.fixed_at_turn == 2
    events = read_transcript(transcript)
    assert [e["mode"] for e in events if e["event"] == "model_call"] == ["ut", "ut"]


def test_auto_that_fixes_in_turn_one_reports_ut(project, runner):
    request = make_request(project, mode="auto", auto_search=False, model_edits_s=0)
    result = run_session(request, ScriptedBackend([reply(GOOD)]), runner=runner)
    assert result.stop_reason == "passed" and result.mode == "ut"


def test_auto_plan_without_probes_or_tests():
    from selfdebug.server.engine.modes import plan_modes

    def modes(**flags) -> list[str]:
        return [p.mode for p in plan_modes("auto", **flags)]

    assert modes(has_tests=True, can_probe=True) == ["ut"]
    assert modes(has_tests=True, can_probe=False) == ["ut"]
    assert modes(has_tests=False, can_probe=True) == ["explain"]
    assert [p.mode for p in plan_modes("trace", has_tests=True, can_probe=True)] == ["trace"]


# -- the split: one recorder, a session only for a located function ----------------------------


def test_progress_sink_and_transcript_see_the_same_events(project, runner, tmp_path):
    transcript = tmp_path / "progress.jsonl"
    seen = []
    run_session(
        make_request(project, transcript_path=transcript, wider_tests=[ZERO]),
        ScriptedBackend([reply(GOOD)]),
        runner=runner,
        progress=seen.append,
    )
    recorded = [
        (e["turn"], e["phase"], e["percentage"])
        for e in read_transcript(transcript)
        if e["event"] == "progress"
    ]
    assert recorded == [(p.turn, p.phase, p.percentage) for p in seen]
    assert [p.mode for p in seen if p.turn] == ["ut"] * len([p for p in seen if p.turn])


def test_a_missing_function_starts_no_session(project, runner, tmp_path):
    transcript = tmp_path / "missing.jsonl"
    backend = ScriptedBackend([reply(GOOD)])
    result = run_session(
        make_request(project, qualname="nope", transcript_path=transcript),
        backend,
        runner=runner,
    )
    assert result.stop_reason == "error" and "nope" in result.error
    assert backend.requests == [] and result.turns == 0
    assert [e["event"] for e in read_transcript(transcript)] == ["session_end"]
