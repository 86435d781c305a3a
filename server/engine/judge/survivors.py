"""Which candidates survive the tests, and their order before any other evidence.

A survivor passes every chosen test (`passes`: every test it must pass, for the early stop of
the batched runs); survivors are ranked by wider tests passed, then edit size, then agreement
with the model's candidates, then line rank (`Survivor.sort_key`). Candidates that make one
program (`behaviour_key`: `program_key` after the arithmetic identities) count once, the plain
spelling first (`simplest_first`).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from selfdebug.server.engine.answers.candidate import program_key
from selfdebug.server.engine.search.edits import Edit
from selfdebug.server.runner.results import nodeid_covers
from selfdebug.server.runner.search_runner import Verdict


@dataclass
class Survivor:
    """An edit that passes every chosen test."""

    edit: Edit
    chosen_passed: int
    chosen_total: int
    wider_passed: int
    wider_total: int
    breaks_wider: bool  # a wider test that passed before fails with the edit
    agrees_with_model: bool = False

    def sort_key(self) -> tuple[Any, ...]:
        e = self.edit
        return (self.breaks_wider, -self.wider_passed, e.size, not self.agrees_with_model, e.rank)


def passes(verdict: Verdict, must_pass: Sequence[str], unsteady: set[str]) -> bool:
    if verdict.timed_out or verdict.problem or not verdict.outcomes:
        return False
    wanted = set(must_pass) - unsteady
    return all(o == "passed" for n, o in verdict.outcomes.items() if id_in(n, wanted))


def rank_survivors(
    edits: Sequence[Edit],
    verdicts: dict[int, Verdict],
    chosen_ids: Sequence[str],
    wider_ids: Sequence[str],
    wider_passed_before: set[str],
    model_codes: Sequence[str] = (),
) -> list[Survivor]:
    """Edits that pass every chosen test, best first (see Survivor.sort_key)."""
    model_keys = {program_key(code) for code in model_codes}
    survivors = []
    for index, verdict in verdicts.items():
        if verdict.timed_out or verdict.problem or not chosen_ids:
            continue
        if not all(verdict.outcomes.get(n) == "passed" for n in chosen_ids):
            continue
        edit = edits[index]
        wider_passed = sum(verdict.outcomes.get(n) == "passed" for n in wider_ids)
        breaks = any(verdict.outcomes.get(n) != "passed" for n in wider_passed_before)
        survivors.append(
            Survivor(
                edit,
                len(chosen_ids),
                len(chosen_ids),
                wider_passed,
                len(wider_ids),
                breaks,
                program_key(edit.program) in model_keys,
            )
        )
    survivors.sort(key=Survivor.sort_key)
    return survivors


def id_in(nodeid: str, wanted: set[str]) -> bool:
    """Whether one of the requested ids runs `nodeid` (the runner's rule, `nodeid_covers`)."""
    return any(nodeid_covers(requested, nodeid) for requested in wanted)


def simplest_first(survivors: Sequence[Survivor]) -> list[Survivor]:
    """The same order, but within edits that make one program the plain spelling first: the
    user is shown `levenshtein(...)`, not `1 * levenshtein(...)` (the first edit that passed)."""
    ordered = []
    for key, group in by_program(survivors).items():
        plain = [s for s in group if program_key(s.edit.program) == key]
        ordered += plain + [s for s in group if s not in plain]
    return ordered


def by_program(survivors: Sequence[Survivor]) -> dict[str, list[Survivor]]:
    """The survivors grouped by the program they make (`behaviour_key`), in their order."""
    groups: dict[str, list[Survivor]] = {}
    for survivor in survivors:
        groups.setdefault(behaviour_key(survivor.edit.program), []).append(survivor)
    return groups


def behaviour_key(code: str) -> str:
    """`program_key` after the arithmetic identities (`1 * x`, `x + 0`, `x - 0`): the edits
    `1 + f(x)` -> `1 * f(x)`, `1` -> `0` and dropping `1 +` make one program, not three."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return program_key(code)
    return program_key(ast.unparse(_Identities().visit(tree)))


class _Identities(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        left, right = node.left, node.right
        if isinstance(node.op, ast.Add | ast.Sub) and _is_number(right, 0):
            return left
        if isinstance(node.op, ast.Add) and _is_number(left, 0):
            return right
        if isinstance(node.op, ast.Mult) and _is_number(right, 1):
            return left
        if isinstance(node.op, ast.Mult) and _is_number(left, 1):
            return right
        return node


def _is_number(node: ast.expr, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value
