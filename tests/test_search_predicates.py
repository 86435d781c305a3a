"""The condition that guards a suspicious line is edited too (search/predicates.py): the spectra
rank a branch's body, the fix is often in the condition that chose the branch."""

from __future__ import annotations

from selfdebug.server.engine.judge.context import SearchSettings
from selfdebug.server.engine.search.edit_search import candidate_edits
from selfdebug.server.engine.search.localize import SuspiciousLine
from selfdebug.server.engine.search.predicates import with_guarding_conditions
from selfdebug.server.engine.target import locate

CODE = """def store(self, obj):
    wrapper = self.wrap(obj)
    if self.name is not None:
        try:
            wrapper = obj.__dict__.setdefault(self.name, wrapper)
        except AttributeError:
            message = "no __dict__"
            if self.deprecated:
                warn(message)
            else:
                raise TypeError(message) from None
    elif self.strict:
        pass
    while wrapper.busy:
        wrapper.wait()

    def inner():
        if wrapper:
            return 1

    return wrapper
"""


def test_each_ranked_line_brings_its_innermost_condition_one_rank_below():
    ranks = with_guarding_conditions(CODE, 101, {107: 0, 111: 0, 113: 2, 115: 3, 119: 0})
    assert ranks[103] == 1  # `if self.name` guards the except body's line 7
    assert ranks[108] == 1  # `if self.deprecated` guards the raise
    assert ranks[112] == 3  # the elif guards its own body
    assert ranks[114] == 4  # a while guards its body
    assert 118 not in ranks  # a nested function's condition is its own
    assert {line: ranks[line] for line in (107, 111, 113, 115, 119)} == {
        107: 0, 111: 0, 113: 2, 115: 3, 119: 0
    }  # fmt: skip
    assert with_guarding_conditions("def broken(:\n", 1, {1: 0}) == {1: 0}


def test_the_search_edits_the_condition_that_let_the_failing_run_in():
    """Every test runs the condition and only the failing one runs the branch: the spectra rank
    the branch; the none check of the condition comes from its guard."""
    source = "class Descriptor:\n" + "".join(f"    {line}\n" for line in CODE.splitlines())
    target = locate(source, "Descriptor.store")
    body = [SuspiciousLine(line, 0.6, 1, 1, 0, 9) for line in (8, 10, 11, 12)]
    edits = candidate_edits(target, body, SearchSettings())
    made = {(e.line, e.after) for e in edits if e.edit_class == "none-check"}
    assert (4, "obj is not None and self.name is not None") in made
    assert all(e.line in (4, 8, 9, 10, 11, 12) for e in edits)
