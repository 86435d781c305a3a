"""The chosen fix run once more as any fix is run: a fresh pytest process, the wider tests
(none that passed on the original may fail) and the chosen ones, in one run when the wider
tests include them. State left over between the candidates of a batched run would show here;
what this run says is what the session proposes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from selfdebug.server.engine.answers.candidate import Candidate
from selfdebug.server.engine.judge.context import SearchContext
from selfdebug.server.engine.search.edits import Edit
from selfdebug.server.runner.results import RunResult


@dataclass
class VerifiedFix:
    """The search's winner after a normal run: what the session proposes."""

    candidate: Candidate
    chosen_run: RunResult
    wider_run: RunResult | None
    found_by: str  # "edit search at line 7"
    program: str = ""  # the edit's (`Edit.program`): what the benchmark's funnel records


def verify(context: SearchContext, edit: Edit, notes: Sequence[str] = ()) -> VerifiedFix | None:
    """Run the winner as any fix is run (fresh process, wider and chosen tests); None when it
    does not hold up there (state left over between candidates would show here)."""
    new_source = edit.new_source(context.source, context.target)
    context.progress(f"checking the edit at line {edit.line}", 0.95)
    guarded = bool(context.wider) and context.wider_before is not None
    wider = context.run_tests(context.wider, new_source, "search-wider") if guarded else None
    # The wider tests are most often the chosen tests' files: their run answers for the chosen.
    chosen = wider.narrowed(context.wider, context.chosen) if wider is not None else None
    if chosen is None:
        chosen = context.run_tests(context.chosen, new_source, "search-chosen")
    if not chosen.all_passed:
        context.event("search_verify", ok=False, edit=edit.describe(), why="chosen tests")
        return None
    if wider is not None and context.wider_before is not None:
        broken = wider.no_longer_passing(context.wider_before)
        if broken:
            context.event("search_verify", ok=False, edit=edit.describe(), why="wider tests")
            return None
    context.event("search_verify", ok=True, edit=edit.describe())
    flaws = [n for n in notes if n.startswith("raises ")]
    agreement = "".join(f"; {n}" for n in notes if not n.startswith("raises "))
    source = "the model's local edit" if edit.origin else "edit search"
    candidate = Candidate(
        reply="",
        code=edit.code,
        new_source=new_source,
        explanation=f"{source}: {edit.describe()}{agreement}",
        warnings=[f"{source}: the edit {n}" for n in flaws],
    )
    on = f" on {context.found_on}" if context.found_on else ""
    found_by = edit.origin or f"edit search at line {edit.line}"
    return VerifiedFix(candidate, chosen, wider, f"{found_by}{on}", edit.program)
