"""Every prompt template renders in both forms, and a user folder overrides any of them."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from selfdebug.server.engine.history import Attempt
from selfdebug.server.engine.model_calls.prompting import (
    COMPLETION_STOP,
    PROMPTS_DIR_ENV,
    STEPS,
    PromptLibrary,
    PromptVars,
    ShownTest,
)


def sample_vars(**changes) -> PromptVars:
    values = dict(
        name="sum_to",
        qualname="sum_to",
        file="calc.py",
        code="def sum_to(n):\n    return n",
        tests=[
            ShownTest("check_calc.py::test_three", "def test_three():\n    assert sum_to(3) == 6")
        ],
        tally="0/1",
        failures="FAILED check_calc.py::test_three: `assert sum_to(3) == 6` got 3, expected 6",
        check_error="",
        failing_test="check_calc.py::test_three",
        log="line 2: n=3",
        log_kind="probes",
        code_with_prints="def sum_to(n):\n    print('n', n)\n    return n",
    )
    values.update(changes)
    return PromptVars(**values)


@pytest.mark.parametrize("step", STEPS)
def test_every_chat_template_renders_system_and_user(step):
    rendered = PromptLibrary().render(step, "chat", sample_vars())
    assert rendered.prompt is None
    assert rendered.messages is not None
    roles = [m["role"] for m in rendered.messages]
    assert roles == ["system", "user"]
    user = rendered.messages[1]["content"]
    assert "def sum_to(n):" in user
    assert "----- user -----" not in user
    assert "{{" not in user and "{%" not in user


@pytest.mark.parametrize("step", STEPS)
def test_every_completion_template_renders_few_shot_text(step):
    rendered = PromptLibrary().render(step, "completion", sample_vars())
    assert rendered.messages is None
    assert rendered.prompt is not None
    assert rendered.stop == COMPLETION_STOP
    # our own exemplar first, then the real function
    assert rendered.prompt.index("count_vowels") < rendered.prompt.index("def sum_to(n):")
    assert "{{" not in rendered.prompt


@pytest.mark.parametrize("step", ["fix_simple", "fix_ut", "add_prints"])
def test_code_steps_end_in_an_open_fence(step):
    rendered = PromptLibrary().render(step, "completion", sample_vars())
    assert rendered.prompt is not None and rendered.prompt.endswith("```python\n")
    assert rendered.opens_code_fence


@pytest.mark.parametrize("step", ["fix_simple", "fix_ut", "add_prints"])
def test_code_steps_prefill_the_def_line_for_base_models(step):
    rendered = PromptLibrary().render(step, "completion", sample_vars(signature="def sum_to(n):\n"))
    assert rendered.prompt is not None and rendered.prompt.endswith("```python\ndef sum_to(n):\n")
    assert rendered.opens_code_fence and rendered.code_prefix == "def sum_to(n):\n"


def test_reasoning_steps_do_not_end_inside_code():
    for step in ("fix_explain", "fix_trace", "fix_log"):
        rendered = PromptLibrary().render(step, "completion", sample_vars(signature="def f():\n"))
        assert not rendered.opens_code_fence and rendered.code_prefix == ""


def test_ut_prompt_carries_the_failure_and_simple_does_not():
    library = PromptLibrary()
    ut = library.render("fix_ut", "chat", sample_vars()).messages[1]["content"]
    simple = library.render("fix_simple", "chat", sample_vars(failures="")).messages[1]["content"]
    assert "got 3, expected 6" in ut
    assert "got 3" not in simple and "wrong" in simple


def test_log_prompt_shows_prints_or_probes():
    library = PromptLibrary()
    prints = library.render("fix_log", "chat", sample_vars(log_kind="prints")).messages[1]
    probes = library.render("fix_log", "chat", sample_vars(log_kind="probes")).messages[1]
    assert "print('n', n)" in prints["content"]
    assert "automatic tracing" in probes["content"]
    assert "line 2: n=3" in probes["content"]


def test_check_error_is_shown_when_set():
    text = PromptLibrary().render("fix_ut", "chat", sample_vars(check_error="it had no code"))
    assert "could not be used: it had no code" in text.messages[1]["content"]


def test_override_folder_replaces_a_template_by_name(tmp_path: Path):
    (tmp_path / "chat").mkdir()
    (tmp_path / "chat" / "fix_ut.j2").write_text(
        '{% extends "chat/base.j2" %}{% block user %}CUSTOM {{ v.name }}{% endblock %}'
    )
    library = PromptLibrary(tmp_path)
    rendered = library.render("fix_ut", "chat", sample_vars())
    assert rendered.messages[1]["content"] == "CUSTOM sum_to"
    assert "experienced Python programmer" in rendered.messages[0]["content"]  # base still ours
    # other templates still come from the package
    assert (
        "line by line"
        in library.render("fix_explain", "chat", sample_vars()).messages[1]["content"]
    )


def test_override_folder_from_environment(tmp_path: Path, monkeypatch):
    (tmp_path / "completion").mkdir()
    (tmp_path / "completion" / "fix_simple.j2").write_text("ENV {{ v.qualname }}\n```python\n")
    monkeypatch.setenv(PROMPTS_DIR_ENV, str(tmp_path))
    rendered = PromptLibrary().render("fix_simple", "completion", sample_vars())
    assert rendered.prompt == "ENV sum_to\n```python\n"


def test_missing_variable_is_an_error_not_an_empty_prompt(tmp_path: Path):
    (tmp_path / "chat").mkdir()
    (tmp_path / "chat" / "fix_ut.j2").write_text("{{ v.no_such_field }}")
    with pytest.raises(jinja2.UndefinedError):
        PromptLibrary(tmp_path).render("fix_ut", "chat", sample_vars())


def test_unknown_step_is_rejected():
    with pytest.raises(ValueError):
        PromptLibrary().render("fix_everything", "chat", sample_vars())


def _attempt(number: int, verdict: str = "Not kept: it passed fewer tests (0/1).") -> Attempt:
    return Attempt(
        number=number,
        turn=number,
        mode="ut",
        diff="--- original\n+++ attempt 1\n@@ -1,2 +1,2 @@\n def sum_to(n):\n-    return n\n"
        "+    return n * 2\n",
        tally="0/1",
        feedback="FAILED check_calc.py::test_three: got 6, expected 7",
        verdict=verdict,
    )


@pytest.mark.parametrize("step", ["fix_ut", "fix_explain", "fix_trace", "fix_log"])
def test_chat_fix_prompts_show_the_attempt_history(step):
    variables = sample_vars(history=[_attempt(1), _attempt(2)])
    user = PromptLibrary().render(step, "chat", variables).messages[1]["content"]
    assert user.index("[Revised Python #1]") < user.index("[Revised Python #2]")
    assert "+    return n * 2" in user
    assert "[UT Feedback #2] 0/1 tests pass.\nFAILED check_calc.py::test_three: got 6" in user
    assert "[Verdict #2] Not kept: it passed fewer tests (0/1)." in user


def test_simple_history_shows_the_change_but_no_test_results():
    variables = sample_vars(failures="", history=[_attempt(1, "Not kept: it is still wrong.")])
    user = PromptLibrary().render("fix_simple", "chat", variables).messages[1]["content"]
    assert "[Revised Python #1]" in user and "still wrong" in user
    assert "UT Feedback" not in user and "got 6" not in user


@pytest.mark.parametrize("step", STEPS)
def test_completion_prompts_show_history_and_the_repeat_note(step):
    variables = sample_vars(history=[_attempt(1)], repeat_note="the same program as attempt #1")
    prompt = PromptLibrary().render(step, "completion", variables).prompt
    assert prompt is not None and "### Earlier attempts" in prompt
    assert "+    return n * 2" in prompt and "the same program as attempt #1" in prompt
    assert prompt.index("### Earlier attempts") > prompt.index("def sum_to(n):")


@pytest.mark.parametrize("step", STEPS)
def test_every_chat_step_shows_the_repeat_note(step):
    rendered = PromptLibrary().render(step, "chat", sample_vars(repeat_note="asked before"))
    assert "Note: asked before" in rendered.messages[1]["content"]


def test_no_history_no_history_section():
    user = PromptLibrary().render("fix_ut", "chat", sample_vars()).messages[1]["content"]
    assert "Revised Python" not in user and "Note:" not in user


@pytest.mark.parametrize("step", ["fix_explain", "fix_trace", "fix_log"])
def test_code_only_asks_for_the_code_without_the_reasoning(step):
    """After an answer cut at its length limit, the retry asks for the code alone."""
    library = PromptLibrary()
    chat = library.render(step, "chat", sample_vars(code_only=True)).messages[1]["content"]
    assert "Answer with the code only" in chat
    assert "line by line" not in chat and 'Start with "' not in chat
    completion = library.render(
        step, "completion", sample_vars(code_only=True, signature="def sum_to(n):\n")
    )
    assert completion.prompt is not None
    assert completion.prompt.endswith("### Fixed function\n```python\ndef sum_to(n):\n")
    assert completion.opens_code_fence
