"""A long function is asked for as SEARCH/REPLACE blocks, not written out again (answer_form.py,
issue 36 item 5): the choice, the chat prompts of every fix step, the blocks applied to the
function as the prompt showed it, and a session on the REAL runner fixed by a block answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.sumproj import GOOD, copy_project, make_request, prompt_text
from test_engine_prompts import sample_vars

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import run_session
from selfdebug.server.engine.answers.answer_form import choose_answer_form
from selfdebug.server.engine.answers.candidate import check_candidate
from selfdebug.server.engine.model_calls.prompting import PromptLibrary
from selfdebug.server.engine.target import locate
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.runner import ProjectRunner, RunnerSettings

FIX_STEPS = ["fix_simple", "fix_ut", "fix_explain", "fix_trace", "fix_log"]
BLOCK = (
    "Bug: the range stops one number early.\n<<<<<<< SEARCH\n    for i in range(1, n):\n"
    "=======\n    for i in range(1, n + 1):\n>>>>>>> REPLACE\n"
)
LONG = "def f(x):\n" + "".join(f"    x = x + {i}  # step {i} of the long body\n" for i in range(60))


def test_a_function_over_half_the_answer_budget_is_asked_for_as_blocks():
    long = choose_answer_form(LONG, 768, chat=True)
    assert long.edit_form and long.code_tokens > 384
    assert "over half of the 768-token answer budget" in long.describe()
    assert not choose_answer_form(GOOD, 768, chat=True).edit_form
    # a completion prompt continues the function's own text: always whole
    assert not choose_answer_form(LONG, 768, chat=False).edit_form


@pytest.mark.parametrize("step", FIX_STEPS)
@pytest.mark.parametrize("code_only", [False, True])
def test_every_chat_fix_step_asks_a_long_function_for_its_changed_lines(step, code_only):
    library = PromptLibrary()
    edits = library.render(step, "chat", sample_vars(edit_form=True, code_only=code_only))
    user = edits.messages[1]["content"]
    assert "<<<<<<< SEARCH" in user and ">>>>>>> REPLACE" in user
    assert "do not write it out again" in user and "whole corrected function" not in user
    whole = library.render(step, "chat", sample_vars(code_only=code_only)).messages[1]["content"]
    assert "whole corrected function" in whole and "<<<<<<< SEARCH" not in whole


def test_the_blocks_change_the_function_the_prompt_showed():
    """A later turn shows the best attempt so far; a block quoting its lines applies to it."""
    source = Path(__file__).parent.joinpath("fixtures/engine/sumproj/calc.py").read_text()
    target = locate(source, "sum_to")
    shown = target.code.replace("total = 0", "total = 0  # kept from turn 1")
    reply = "<<<<<<< SEARCH\n    total = 0  # kept from turn 1\n=======\n    total = 0\n"
    reply += ">>>>>>> REPLACE\n"
    assert not check_candidate(reply, target, source).ok  # not in the original
    candidate = check_candidate(reply, target, source, edit_base=shown)
    assert candidate.ok, candidate.problem
    assert candidate.code == target.code  # the block undid the turn-1 comment, nothing else
    # a block quoting a line as the original has it, which the version shown changed: applied
    # to the original (seen on click `style` with the 1.5B model)
    changed = target.code.replace("range(1, n)", "range(0, n)")
    quoting_original = check_candidate(BLOCK, target, source, edit_base=changed)
    assert quoting_original.ok and "range(1, n + 1)" in (quoting_original.code or "")
    assert quoting_original.notes == ["the edit blocks quote the original function: applied to it"]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory, "answer_form")


def test_a_session_on_a_long_function_asks_for_blocks_and_applies_the_answer(project, tmp_path):
    """`max_tokens` 40 makes `sum_to` (about 30 tokens) long for its answer budget."""
    backend = ScriptedBackend([BLOCK])
    transcript = tmp_path / "blocks.jsonl"
    request = make_request(project, max_tokens=40, max_turns=1, transcript_path=transcript)
    with ProjectRunner(project, RunnerSettings(test_timeout_s=10)) as runner:
        result = run_session(request, backend, runner=runner)
        assert result.stop_reason == "passed", result.error
        assert "range(1, n + 1)" in (result.fixed_file or "")
        assert "<<<<<<< SEARCH" in prompt_text(backend, 0)
        forms = [e for e in read_transcript(transcript) if e["event"] == "answer_form"]
        assert len(forms) == 1 and "over half of the 40-token" in forms[0]["why"]
        whole = ScriptedBackend([f"Bug: early stop.\n```python\n{GOOD}```\n"])
        assert run_session(make_request(project), whole, runner=runner).stop_reason == "passed"
        assert "<<<<<<< SEARCH" not in prompt_text(whole, 0)
