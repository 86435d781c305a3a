"""The model's answers to a fix prompt: one call, every sample checked, and one more call for the
code alone when no sample was usable because the answers were cut at the token limit or held no
code.

Why a step of its own: what a session does with a turn's candidates (run, vote, guard) does not
depend on how they were asked for and checked; this module owns the asking and the checking
(answers/candidate.py checks one answer; here, every sample of a call, with the session's own
refusals: the mode's, a repeat of the shown function, a test's expected value written into the
code).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from selfdebug.server.engine.answers.candidate import Candidate, check_candidate, same_code
from selfdebug.server.engine.modes import RETRY_MAX_TOKENS, STEP_MAX_TOKENS

if TYPE_CHECKING:
    from selfdebug.server.backends.base import Completion
    from selfdebug.server.engine.model_calls.prompting import PromptVars, RenderedPrompt
    from selfdebug.server.engine.session.context import RunContext

UNCHANGED = (
    "the answer repeats the function without any change; change the line that makes the tests fail"
)


def ask_for_fix(session: RunContext, variables: PromptVars) -> list[Candidate]:
    """Ask for the fix and check every sample. When no sample is usable because the answers
    were cut at the token limit, or ended with an explanation and no code, ask once more,
    for code only (with a larger budget after a cut).

    Why the no-code case: Qwen2.5-Coder-0.5B answered `Bug: ...` and stopped, with no code,
    in almost every `none` session on QuixBugs dev (docs/bench/quixbugs-dev-modes-0.5b/), so that
    mode could not fix anything with it."""
    request = session.request
    step, n = session.strategy.fix_step, max(1, request.model.samples)
    rendered, completion = session.ask(step, variables, n=n)
    session.emit(f"checking {len(completion.texts)} candidate(s)", 0.7)
    candidates = checked_answers(session, rendered, completion)
    if any(c.ok for c in candidates):
        return candidates
    used = request.model.max_tokens or STEP_MAX_TOKENS[step]
    if any(c.cut for c in candidates):
        event, budget = "retry_cut", max(used, min(used * 2, RETRY_MAX_TOKENS))
        why = f"your answer was cut off at the length limit ({used} tokens) before its code ended"
    elif any(c.no_code for c in candidates):
        event, budget, why = "retry_no_code", used, "your answer gave no code"
    else:
        return candidates
    session.record(event, max_tokens=budget)
    session.emit("asking again for the code only", 0.6)
    code_only = dataclasses.replace(variables, code_only=True, check_error=why)
    rendered, completion = session.ask(step, code_only, n=n, max_tokens=budget)
    return checked_answers(session, rendered, completion)


def checked_answers(
    session: RunContext, rendered: RenderedPrompt, completion: Completion
) -> list[Candidate]:
    """Every sample, checked; the mode's own refusals and unchanged code included."""
    from selfdebug.instrument import contains_probes

    reasons = completion.finish_reasons
    candidates = [
        check_candidate(
            text,
            session.target,
            session.source,
            opened_fence=rendered.opens_code_fence,
            code_prefix=rendered.code_prefix,
            contains_probes=contains_probes,
            truncated=index < len(reasons) and reasons[index] == "length",
            edit_base=session.current_code,
            strip_new_prints=session.strategy.strips_prints,
        )
        for index, text in enumerate(completion.texts)
    ]
    for candidate in candidates:
        if not candidate.ok or not candidate.code:
            continue
        if same_code(candidate.code, session.current_code):
            candidate.problem = UNCHANGED
            session.sample_next_turn()  # greedy would give it again
        else:
            candidate.problem = session.strategy.refuses(candidate.code, session.target.code)
            overfit = session.test_values.refusal(candidate.code, session.target.code)
            if overfit and not candidate.problem:
                candidate.problem = overfit
                session.refused.append(f"the model's turn {session.turn}: {overfit}")
    for index, candidate in enumerate(candidates):
        session.record(
            "candidate",
            index=index,
            ok=candidate.ok,
            problem=candidate.problem,
            warnings=candidate.warnings,
            notes=candidate.notes,
            explanation=candidate.explanation,
            code=candidate.code,
        )
    return candidates
