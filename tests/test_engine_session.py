"""The debugging loop with a scripted model on a real fixture project and the REAL runner:
what each mode puts in the prompt, every stop rule, candidate rejection, the regression guard,
the vote, the transcript, and that the user's file is never written."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.sumproj import (
    COUNTER,
    NEGATIVE,
    ZERO,
    copy_project,
    make_request,
    prompt_text,
)

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.feedback import REGRESSION_NOTE
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.engine.types import TargetSpec
from selfdebug.server.runner import ProjectRunner, RunnerSettings

BUGGY = (
    "def sum_to(n):\n    total = 0\n    for i in range(1, n):\n        total += i\n"
    "    return total\n"
)
GOOD = (
    "def sum_to(n):\n    total = 0\n    for i in range(1, n + 1):\n        total += i\n"
    "    return total\n"
)
FORMULA = "def sum_to(n):\n    return n * (n + 1) // 2\n"  # passes 3 and 1, breaks -2


def reply(code: str, bug: str = "the range stops one number early.") -> str:
    return f"Bug: {bug}\n```python\n{code}```\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory, "engine")


@pytest.fixture(scope="module")
def runner(project):
    with ProjectRunner(project, RunnerSettings(test_timeout_s=10)) as shared:
        yield shared


def test_ut_fix_with_evidence_diff_and_untouched_file(project, runner, tmp_path):
    before = (project / "calc.py").read_bytes()
    backend = ScriptedBackend([reply(GOOD)])
    transcript = tmp_path / "t.jsonl"
    result = run_session(
        make_request(project, wider_tests=[ZERO, NEGATIVE], transcript_path=transcript),
        backend,
        runner=runner,
    )
    assert result.stop_reason == "passed" and result.success
    assert str(result.chosen_before) == "0/2" and str(result.chosen_after) == "2/2"
    assert str(result.wider_before) == "2/2" and str(result.wider_after) == "2/2"
    assert "passes 2/2 chosen, 2/2 wider" in result.summary()
    assert result.summary().endswith("stop: passed; 1 model call")
    assert "-    for i in range(1, n):\n+    for i in range(1, n + 1):" in result.diff
    assert result.explanation == "the range stops one number early."
    assert result.fixed_at_turn == 1 and result.model_calls == 1
    prompt = prompt_text(backend, 0)
    assert "`assert sum_to(3) == 6` got 3, expected 6" in prompt
    assert "`assert sum_to(1) == 1` got 0, expected 1" in prompt
    assert "test_sum_to_zero" not in prompt  # wider tests are never shown
    assert (project / "calc.py").read_bytes() == before
    events = read_transcript(transcript)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "session_start" and kinds[-1] == "session_end"
    for kind in ("tests", "model_call", "candidate", "guard"):
        assert kind in kinds
    call = next(e for e in events if e["event"] == "model_call")
    assert call["messages"][1]["content"] in prompt
    assert call["completions"] == [reply(GOOD)]
    assert call["prompt_tokens"] > 0 and call["completion_tokens"] > 0
    baseline = next(e for e in events if e["event"] == "tests")
    assert baseline["label"] == "baseline" and baseline["result"]["passed"] == 0


def test_simple_mode_gives_only_the_verdict(project, runner):
    backend = ScriptedBackend([reply(GOOD)])
    result = run_session(make_request(project, mode="simple"), backend, runner=runner)
    assert result.stop_reason == "passed"
    prompt = prompt_text(backend, 0)
    assert "wrong" in prompt and "assert sum_to(3) == 6" in prompt  # the test's source
    assert "got 3" not in prompt


@pytest.mark.parametrize(
    ("mode", "marker"), [("explain", "line by line"), ("trace", 'Start with "Trace:"')]
)
def test_reasoning_modes_ask_for_their_reasoning(project, runner, mode, marker):
    backend = ScriptedBackend([reply(GOOD)])
    result = run_session(make_request(project, mode=mode), backend, runner=runner)
    assert result.stop_reason == "passed" and result.mode == mode
    prompt = prompt_text(backend, 0)
    assert marker in prompt and "got 3, expected 6" in prompt


def test_probe_mode_feeds_back_the_real_log(project, runner):
    backend = ScriptedBackend([reply(GOOD)])
    result = run_session(make_request(project, mode="probe"), backend, runner=runner)
    assert result.stop_reason == "passed" and result.mode == "probe"
    prompt = prompt_text(backend, 0)
    # sum_to(3) really loops with i=1, i=2 and returns 3 (lines counted from the def = 1)
    assert "line 1 `def sum_to(n):`: n=3" in prompt  # each entry quotes its source line
    assert "line 4 `for i in range(1, n):`: i=1" in prompt
    assert "line 4 `for i in range(1, n):`: i=2" in prompt and "i=3" not in prompt
    assert "return=3" in prompt
    assert "inconsistent" in prompt


def test_auto_starts_with_the_real_test_results(project, runner):
    """docs/MODES.md: auto's first turn is `ut` (its later turns: tests/test_engine_turns.py)."""
    backend = ScriptedBackend([reply(GOOD)])
    result = run_session(
        make_request(project, mode="auto", auto_search=False, model_edits_s=0),
        backend,
        runner=runner,
    )
    assert result.mode == "ut" and result.stop_reason == "passed"
    assert "got 3, expected 6" in prompt_text(backend, 0)
    assert "automatic tracing" not in prompt_text(backend, 0)


def test_print_mode_runs_the_models_prints_and_shows_their_output(project, runner):
    with_prints = (
        'def sum_to(n):\n    """Return 1 + 2 + ... + n (0 when n <= 0)."""\n    total = 0\n'
        '    for i in range(1, n):\n        total += i\n        print("step", i, total)\n'
        "    return total\n"
    )
    backend = ScriptedBackend([f"```python\n{with_prints}```\n", reply(GOOD)])
    result = run_session(make_request(project, mode="print"), backend, runner=runner)
    assert result.stop_reason == "passed", result.error
    assert result.model_calls == 2
    assert "Add ONLY print" in prompt_text(backend, 0)
    second = prompt_text(backend, 1)
    assert 'print("step", i, total)' in second  # the model's own version is shown
    assert "step 1 1" in second and "step 2 3" in second  # what the prints really wrote
    assert "explain the failing test case step by step" in second


def test_print_mode_rejects_a_version_that_changes_code(project, runner):
    changed = "def sum_to(n):\n    print(n)\n    return n * (n + 1) // 2\n"
    backend = ScriptedBackend([f"```python\n{changed}```\n", reply(GOOD)])
    result = run_session(make_request(project, mode="print", max_turns=2), backend, runner=runner)
    # turn 1: the prints are rejected, the function is traced with probes instead, and the fix
    # call is told why and shown the probe log
    fix_prompt = prompt_text(backend, 1)
    assert "the version with prints was not used" in fix_prompt
    assert "automatic tracing" in fix_prompt
    assert "line 4 `for i in range(1, n):`: i=1" in fix_prompt
    assert result.stop_reason == "passed" and result.fixed_at_turn == 1
    assert result.model_calls == 2 and result.fixed_function == GOOD


def test_none_mode_is_a_single_shot(project, runner):
    backend = ScriptedBackend([reply(BUGGY)])
    result = run_session(make_request(project, mode="none", max_turns=10), backend, runner=runner)
    assert result.stop_reason == "max_turns"
    assert result.turns == 1 and result.model_calls == 1
    assert result.fixed_function is None and not result.success


def test_already_passing_asks_no_model(project, runner):
    backend = ScriptedBackend([reply(GOOD)])
    result = run_session(make_request(project, tests=[ZERO]), backend, runner=runner)
    assert result.stop_reason == "already_passing"
    assert backend.requests == [] and result.diff == ""


def test_three_turns_without_improvement_stop(project, runner):
    backend = ScriptedBackend([reply(BUGGY)])
    result = run_session(make_request(project), backend, runner=runner)
    assert result.stop_reason == "no_improvement"
    assert result.turns == 3 and result.model_calls == 3
    assert result.fixed_function is None and result.chosen_after is None


def test_an_unchanged_answer_is_rejected_with_feedback(project, runner):
    original = (project / "calc.py").read_text()
    same = original[original.index("def sum_to") : original.index("class Counter")].rstrip()
    backend = ScriptedBackend([reply(same + "\n"), reply(GOOD)])
    result = run_session(make_request(project), backend, runner=runner)
    assert "repeats the function without any change" in prompt_text(backend, 1)
    assert result.stop_reason == "passed" and result.fixed_at_turn == 2


def test_max_turns_stop(project, runner):
    backend = ScriptedBackend([reply(BUGGY)])
    result = run_session(make_request(project, max_turns=2), backend, runner=runner)
    assert result.stop_reason == "max_turns" and result.turns == 2


def test_token_budget_stop(project, runner):
    backend = ScriptedBackend([reply(BUGGY)])
    result = run_session(make_request(project, token_budget=10), backend, runner=runner)
    assert result.stop_reason == "token_budget" and result.model_calls == 1


def test_time_budget_stop(project, runner):
    backend = ScriptedBackend([reply(GOOD)])
    result = run_session(make_request(project, time_budget_s=0.0), backend, runner=runner)
    assert result.stop_reason == "time_budget" and backend.requests == []


def test_cancel_during_the_model_call(project, runner):
    cancel = CancelToken()
    backend = ScriptedBackend([reply(GOOD)], delay_s=5.0)

    def on_progress(event):
        if event.phase == "asking the model":
            cancel.cancel("user")

    result = run_session(
        make_request(project), backend, runner=runner, progress=on_progress, cancel=cancel
    )
    assert result.stop_reason == "cancelled"
    assert result.fixed_function is None and result.seconds < 5.0


def test_cancel_during_the_final_wider_check_is_a_cancel(project, runner):
    only_one = "def sum_to(n):\n    return 1 if n == 1 else 0\n"  # 1/2 chosen: partial
    cancel = CancelToken()

    def on_progress(event):
        if event.turn > 0 and "wider tests" in event.phase:  # the partial fix's guard run
            cancel.cancel("user")

    result = run_session(
        make_request(project, wider_tests=[ZERO, NEGATIVE], max_turns=1),
        ScriptedBackend([reply(only_one)]),
        runner=runner,
        progress=on_progress,
        cancel=cancel,
    )
    assert result.stop_reason == "cancelled" and result.error == ""
    assert result.fixed_function is None and result.diff == ""


def test_bad_candidate_is_rejected_and_the_reason_fed_back(project, runner):
    start = "START = 1\n\n" + GOOD.replace("range(1, n + 1)", "range(START, n + 1)")
    backend = ScriptedBackend([reply(start), reply(GOOD)])
    result = run_session(make_request(project), backend, runner=runner)
    assert result.stop_reason == "passed" and result.fixed_at_turn == 2
    second = prompt_text(backend, 1)
    assert "could not be used: the answer adds module-level `START`" in second
    assert result.candidates_checked == 1


def test_regression_guard_blocks_a_candidate_that_breaks_a_wider_test(project, runner, tmp_path):
    backend = ScriptedBackend([reply(FORMULA), reply(GOOD)])
    request = make_request(project, wider_tests=[ZERO, NEGATIVE])
    result = run_session(request, backend, runner=runner)
    assert result.stop_reason == "passed" and result.fixed_at_turn == 2
    assert "range(1, n + 1)" in (result.fixed_function or "")
    assert REGRESSION_NOTE in prompt_text(backend, 1)
    assert str(result.wider_after) == "2/2"
    # the only candidate breaks sum_to(-2): never proposed
    stubborn = ScriptedBackend([reply(FORMULA)])
    transcript = tmp_path / "blocked.jsonl"
    blocked = run_session(
        make_request(project, wider_tests=[ZERO, NEGATIVE], transcript_path=transcript),
        stubborn,
        runner=runner,
    )
    assert blocked.fixed_function is None and blocked.stop_reason == "no_improvement"
    assert not blocked.success and blocked.diff == ""
    # the same program proposed again is not run again: 2 baseline runs + 1 chosen + 1 wider
    runs = [e for e in read_transcript(transcript) if e["event"] == "tests"]
    assert len(runs) == 4 and blocked.model_calls == 3


def test_majority_vote_picks_the_most_common_behaviour(project, runner):
    only_three = "def sum_to(n):\n    return 6 if n == 3 else 5\n"
    small_a = "def sum_to(n):\n    return n if n < 2 else 0\n"
    small_b = "def sum_to(n):\n    return 1 if n == 1 else 0\n"
    backend = ScriptedBackend([reply(only_three), reply(small_a), reply(small_b)])
    result = run_session(make_request(project, samples=3, max_turns=1), backend, runner=runner)
    assert backend.requests[0].n == 3 and backend.requests[0].temperature == 0.7
    # each sample passes 1/2; two agree (sum_to(3) -> 0), so the vote takes the first of them
    assert result.fixed_function == small_a
    assert str(result.chosen_after) == "1/2" and not result.success


def test_greedy_when_one_sample(project, runner):
    backend = ScriptedBackend([reply(GOOD)])
    run_session(make_request(project), backend, runner=runner)
    assert backend.requests[0].n == 1 and backend.requests[0].temperature == 0.0


def test_method_fix_is_reindented_in_its_class(project, runner):
    fixed = (
        "class Counter:\n    def add_all(self, values):\n        for value in values:\n"
        "            self.count += value\n        return self.count\n"
    )
    backend = ScriptedBackend([reply(fixed, "it skips the first value.")])
    request = make_request(project, qualname="Counter.add_all", tests=[COUNTER])
    result = run_session(request, backend, runner=runner)
    assert result.stop_reason == "passed"
    assert "-        for value in values[1:]:\n+        for value in values:" in result.diff
    assert "of class `Counter`" in prompt_text(backend, 0)


def test_completion_form_reply_continues_the_open_fence(project, runner):
    continuation = GOOD + "```\n### Bug\nThe range misses n itself.\n"
    backend = ScriptedBackend([continuation], prompt_form="completion")
    result = run_session(make_request(project), backend, runner=runner)
    assert result.stop_reason == "passed"
    assert result.explanation == "The range misses n itself."
    request = backend.requests[0]
    assert request.prompt is not None and request.prompt.endswith("```python\ndef sum_to(n):\n")
    assert "### End" in request.stop


def test_without_tests_explain_proposes_an_unverified_candidate(project, runner):
    backend = ScriptedBackend([reply(GOOD)])
    result = run_session(make_request(project, tests=[], mode="auto"), backend, runner=runner)
    assert result.mode == "explain" and result.turns == 1 and result.model_calls == 1
    assert result.fixed_function == GOOD
    assert str(result.chosen_after) == "0/0" and not result.success  # no evidence, no "fixed"
    assert "There are no tests for this function" in prompt_text(backend, 0)


def test_completion_reply_may_continue_after_the_prefilled_def_line(project, runner):
    body = GOOD[len("def sum_to(n):\n") :]
    backend = ScriptedBackend([body + "```\n### Bug\nOff by one.\n"], prompt_form="completion")
    result = run_session(make_request(project), backend, runner=runner)
    assert backend.requests[0].prompt.endswith("```python\ndef sum_to(n):\n")
    assert result.stop_reason == "passed" and result.fixed_function == GOOD


def test_unknown_function_is_an_error_result(project, runner):
    backend = ScriptedBackend([reply(GOOD)])
    result = run_session(make_request(project, qualname="nope"), backend, runner=runner)
    assert result.stop_reason == "error" and "nope" in result.error


def test_session_without_runner_creates_and_closes_its_own(project):
    result = run_session(make_request(project), ScriptedBackend([reply(GOOD)]))
    assert result.stop_reason == "passed"


def test_unsaved_buffer_is_what_gets_debugged(project, runner):
    buffer = (project / "calc.py").read_text().replace("range(1, n)", "range(0, n)")
    backend = ScriptedBackend([reply(GOOD)])
    result = run_session(make_request(project, source_override=buffer), backend, runner=runner)
    assert "-    for i in range(0, n):" in result.diff  # diff against the buffer, not the disk


def test_the_model_call_deadline_comes_from_the_request(project, runner):
    """BackendSettings.timeout_s (`--call-deadline`, `modelCallDeadline`) reaches every model
    call, and the session's own time budget still caps it."""
    backend = ScriptedBackend([reply(GOOD)])
    run_session(make_request(project, model_call_deadline_s=450.0), backend, runner=runner)
    assert backend.requests[0].deadline_s == 450.0

    capped = ScriptedBackend([reply(GOOD)])
    run_session(
        make_request(project, model_call_deadline_s=450.0, time_budget_s=60.0),
        capped,
        runner=runner,
    )
    assert 1.0 <= capped.requests[0].deadline_s <= 60.0


def test_a_file_that_cannot_be_read_or_lacks_the_function_ends_the_session_with_why(tmp_path):
    """No runner is started: the result says which file, and why, in the user's words."""
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    backend = ScriptedBackend(["never asked"])
    gone = run_session(
        DebugRequest(TargetSpec(tmp_path / "gone.py", "add", tmp_path, tests=[])),
        backend,
    )
    assert gone.stop_reason == "error"
    assert gone.error.startswith(f"cannot read {tmp_path / 'gone.py'}: No such file")
    absent = run_session(
        DebugRequest(TargetSpec(tmp_path / "calc.py", "sub", tmp_path, tests=[])),
        backend,
    )
    assert absent.stop_reason == "error" and absent.error.startswith("calc.py: ")
    assert "sub" in absent.error and backend.requests == []
