"""Whether a fix is asked as the whole function or as SEARCH/REPLACE blocks (edit_blocks.py).

A whole-function answer repeats every line of the function. On the real dev set's long functions
(docstrings of 20-60 lines) that is most of a session's time and often all of the answer budget:
click `Option.get_help_record`'s whole-function answers were all cut at the length limit or near it
(docs/bench/real-dev-auto-1.5b/2026-12-05-a16a980/), and no rewrite of a long function fixed
anything there. When the function alone would take more than half the step's answer budget, the
chat steps ask for the changed lines only; a short function (every QuixBugs and HumanEvalFix one)
is asked for whole, as before. Completion prompts (base models) continue the function's own text
and always get it whole. The size is estimated from the characters (context_fit.estimate_tokens),
not counted by the model: counting would ask the model's process before the call itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from selfdebug.server.engine.model_calls.context_fit import estimate_tokens

# The share of the answer budget a function may take before it is asked for as edits: the
# answer also holds the "Bug:" line (and, in the reasoning steps, the reasoning).
EDIT_FORM_SHARE = 0.5


@dataclass(frozen=True)
class AnswerForm:
    edit_form: bool
    code_tokens: int
    budget_tokens: int

    def describe(self) -> str:
        """The transcript's line for the edit form, e.g. "asked as SEARCH/REPLACE blocks: the
        function is 612 tokens, over half of the 768-token answer budget"."""
        return (
            f"asked as SEARCH/REPLACE blocks: the function is {self.code_tokens} tokens, over "
            f"half of the {self.budget_tokens}-token answer budget"
        )


def choose_answer_form(code: str, budget_tokens: int, *, chat: bool) -> AnswerForm:
    """The form for a fix of `code` whose answer may take `budget_tokens`."""
    tokens = estimate_tokens(code)
    return AnswerForm(chat and tokens > budget_tokens * EDIT_FORM_SHARE, tokens, budget_tokens)
