"""Starting from a failing test (issue 35): the project's functions ranked for its failure by
their lines' spectra (real pytest runs through the spectrum plugin), and `selfdebug fix --test`
with no function repairing the top suspect."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

from helpers.bounds_project import bounds_project

from selfdebug.server.engine import types
from selfdebug.server.engine.request import RequestError, new_request
from selfdebug.server.engine.suspects.localize import FailureLocalization, localize_failure
from selfdebug.server.engine.suspects.origin import value_origins
from selfdebug.server.engine.suspects.rank import Suspect, function_spans
from selfdebug.server.engine.suspects.repair import (
    SuspectAttempt,
    evidence_table,
    failing_tests_for,
    ranked_by_evidence,
    repair_suspects,
    reported,
    search_evidence,
)
from selfdebug.server.engine.types import DebugRequest, DebugResult
from selfdebug.server.runner import ProjectRunner, RunnerSettings
from selfdebug.server.runner.results import Frame

ORDERS = """def unit_price(item):
    if item["qty"] >= 10:
        return item["price"] * 9 / 100
    return item["price"]


def order_total(items):
    total = 0
    for item in items:
        total += unit_price(item) * item["qty"]
    return total


def describe(items):
    return f"{len(items)} items"
"""
# The bug is in unit_price (the bulk price: 9/100 for 9/10), which the failing test reaches
# only through order_total; the passing tests run order_total and unit_price's other lines.
ORDER_TESTS = """from shop.orders import describe, order_total


def test_small_order():
    assert order_total([{"price": 2, "qty": 3}]) == 6


def test_two_small_items():
    assert order_total([{"price": 1, "qty": 1}, {"price": 5, "qty": 2}]) == 11


def test_bulk_order():
    assert order_total([{"price": 1, "qty": 10}]) == 9


def test_describe():
    assert describe([1, 2]) == "2 items"
"""


def _package(root: Path, module: str, source: str, tests: str) -> Path:
    """A project of one package module (`shop/orders.py`) and its test file in tests/."""
    package, name = module.split("/")
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text("")
    (root / package / name).write_text(source)
    (root / "tests").mkdir()
    (root / "tests" / f"test_{name}").write_text(tests)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    return root


def _shop(root: Path) -> Path:
    return _package(root, "shop/orders.py", ORDERS, ORDER_TESTS)


def _fix_test(root: Path, nodeid: str) -> subprocess.CompletedProcess[str]:
    """`selfdebug fix --test NODEID --mode search --write` in `root`, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "selfdebug", "fix", "--test", nodeid, "--mode", "search",
         "--write"],
        cwd=root, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )  # fmt: skip


def _localize(root: Path, tests: list[str]) -> FailureLocalization:
    runner = ProjectRunner(root, RunnerSettings(test_timeout_s=10))
    try:
        return localize_failure(runner, root, tests)
    finally:
        runner.close()


def test_function_spans_give_qualnames_with_decorators_and_nesting():
    source = "class A:\n    @staticmethod\n    def f():\n        def g():\n            pass\n"
    assert function_spans(source) == [("A.f", 2, 3, 5), ("A.f.<locals>.g", 4, 4, 5)]


def test_the_callee_whose_line_only_the_failing_test_runs_ranks_first(tmp_path):
    root = _shop(tmp_path / "shop_project")
    found = _localize(root, ["tests/test_orders.py::test_bulk_order"])
    assert found.error == "" and found.failing == ["tests/test_orders.py::test_bulk_order"]
    assert found.tests_run == 4  # the failing test and its file's other tests
    names = [s.qualname for s in found.suspects]
    assert names == ["unit_price", "order_total"]  # describe: no failing test runs it
    first, second = found.suspects
    assert first.file == "shop/orders.py" and first.score == 1.0
    assert first.describe() == "1/1 failing tests run it, 2/3 passing do"
    assert first.failing_tests == ("tests/test_orders.py::test_bulk_order",)
    assert second.called_by_failing_line and second.score < 1.0
    assert found.table()[1].startswith("  1. shop/orders.py::unit_price (score 1.00): 1/1 failing")


def test_among_equal_spectra_the_function_the_failing_test_calls_ranks_first(tmp_path):
    """Both functions run only in the failing test, and its failing line calls neither: the one
    the test's body calls (the unit under test) comes first, not the one above it in the file."""
    root = tmp_path / "calc_project"
    (root / "calc").mkdir(parents=True)
    (root / "calc" / "__init__.py").write_text("")
    (root / "calc" / "scale.py").write_text(
        "def offset(x):\n    return x + 1\n\n\ndef scaled(x):\n    return offset(x) * 3\n"
    )
    (root / "tests").mkdir()
    (root / "tests" / "test_scale.py").write_text(
        "from calc.scale import scaled\n\n\ndef test_scaled():\n    value = scaled(1)\n"
        "    assert value == 4\n"
    )
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    found = _localize(root, ["tests/test_scale.py::test_scaled"])
    assert [s.qualname for s in found.suspects] == ["scaled", "offset"]
    first, second = found.suspects
    assert first.score == second.score == 1.0
    assert first.called_by_test and not second.called_by_test
    assert first.describe().endswith("; the failing test calls it")


def _project(root: Path, module: str, tests: str) -> Path:
    return _package(root, "pkg/text.py", module, tests)


UNITS = """def unit(count):
    if count == 1:
        return "item"
    return "items"


def describe(count, price):
    return f"{count} {unit(count)} at " + PRICE
"""
UNIT_TESTS = """from pkg.text import describe


def test_many():
    assert describe(2, "3 EUR") == "2 items at 3 EUR"


def test_one_priced_by_a_number():
    assert describe(1, 3) == "1 item at 3"
"""


def test_the_function_whose_operation_raised_the_error_ranks_first(tmp_path):
    """The number `price` makes `+` raise a TypeError in `describe`, whose lines the passing
    test runs too; `unit`'s "item" line only the failing test runs. The error's own site wins
    over the spectrum; an error the code raises on purpose (`raise`) does not count."""
    failing = ["tests/test_text.py::test_one_priced_by_a_number"]
    crash = _project(tmp_path / "crash", UNITS.replace("PRICE", "price"), UNIT_TESTS)
    found = _localize(crash, failing)
    assert [s.qualname for s in found.suspects] == ["describe", "unit"]
    first, second = found.suspects
    assert first.crashed_in and first.score < second.score == 1.0
    assert first.describe().endswith("; the failing test's error was raised in it")
    checked = UNITS.replace("PRICE", "text(price)") + (
        "\n\ndef text(value):\n    if not isinstance(value, str):\n"
        "        raise TypeError('a price is text')\n    return value\n"
    )
    found = _localize(_project(tmp_path / "raise", checked, UNIT_TESTS), failing)
    assert not any(s.crashed_in for s in found.suspects)  # the spectrum decides, as before:
    assert [s.qualname for s in found.suspects][-1] == "describe"  # text, unit at 1.0 first


AMOUNTS = """from decimal import Decimal


def parse_amount(text):
    return Decimal(text)


def band(amount):
    if amount > 100:
        return "large"
    return "small"


def describe(text):
    amount = parse_amount(text)
    if text.startswith("+"):
        text = text[1:]
    return f"{text}: {band(amount)}"
"""
# parse_amount lets "NaN" through (it should raise ValueError); band's comparison then raises
# decimal.InvalidOperation. Every line the failing test runs, each passing test runs too.
AMOUNT_TESTS = """import pytest

from pkg.text import describe


def test_small():
    assert describe("5") == "5: small"


def test_large():
    assert describe("500") == "500: large"


def test_signed():
    assert describe("+5") == "5: small"


def test_not_a_number():
    with pytest.raises(ValueError):
        describe("NaN")
"""


def test_the_function_that_made_the_value_the_error_was_raised_on_ranks_second(tmp_path):
    """Equal spectra everywhere: the crash site (band) first, then the function whose result
    band's failing line read (parse_amount, through band's parameter and describe's
    assignment), before describe, which the traceback names."""
    root = _project(tmp_path / "p", AMOUNTS, AMOUNT_TESTS)
    found = _localize(root, ["tests/test_text.py::test_not_a_number"])
    assert [s.qualname for s in found.suspects] == ["band", "parse_amount", "describe"]
    first, second, third = found.suspects
    assert first.crashed_in and second.value_origin and third.in_traceback
    assert first.score == second.score == third.score
    assert second.describe().endswith("; it made the value the failing test's error was raised on")


def test_value_origins_follow_parameters_and_the_assignments_the_failing_tests_ran():
    source = (
        "def make(x):\n    return x\n\n\n"
        "def use(limit, value=0):\n    return value > limit\n\n\n"
        "def outer(flag):\n    v = make(1)\n    if flag:\n        v = other(2)\n"
        "    return use(3, value=v)\n\n\n"
        "def direct():\n    return use(make(4) + 1, 0)\n\n\n"
        "def checked(n):\n    if n:\n        raise ValueError(n)\n"
    )
    read = {"m.py": source}.__getitem__
    outer = Frame("m.py", 13, "outer", "return use(3, value=v)")
    crash = Frame("m.py", 6, "use", "return value > limit")
    ran = {"m.py": frozenset({6, 10, 11, 13})}  # line 12's `v = other(2)` did not run
    assert value_origins([outer, crash], read, ran) == {"make"}
    ran_both = {"m.py": frozenset({6, 10, 11, 12, 13})}
    assert value_origins([outer, crash], read, ran_both) == {"other"}
    direct = Frame("m.py", 17, "direct", "return use(make(4) + 1, 0)")
    assert value_origins([direct, crash], read, ran) == {"make"}  # `limit`, positionally
    raised = Frame("m.py", 22, "checked", "raise ValueError(n)")
    assert value_origins([raised], read, ran) == set()  # a deliberate error: no origin


def test_a_traced_run_does_not_look_like_a_debugger_to_the_tests(tmp_path):
    """Code that asks `sys.gettrace()` (debugger detection) must fail under the spectrum's
    tracer as it fails without it, or the failing test passes there and nothing is ranked."""
    module = "import sys\n\n\ndef mode():\n    return 'debug' if sys.gettrace() else 'plain'\n"
    tests = "from pkg.text import mode\n\n\ndef test_mode():\n    assert mode() == 'debug'\n"
    found = _localize(_project(tmp_path / "p", module, tests), ["tests/test_text.py::test_mode"])
    assert found.error == "" and [s.qualname for s in found.suspects] == ["mode"]


def test_a_passing_test_has_nothing_to_localize(tmp_path):
    root = _shop(tmp_path / "shop_project")
    found = _localize(root, ["tests/test_orders.py::test_small_order"])
    assert found.error == "the tests pass: nothing to localize" and not found.suspects
    assert found.passed


def test_fix_from_a_failing_test_ranks_and_repairs_the_callee(tmp_path):
    """The CLI, end to end, with the edit search (no model): the ranking is printed first, the
    fix is in unit_price, and the proposal says why that function was chosen."""
    root = _shop(tmp_path / "shop_project")
    done = _fix_test(root, "tests/test_orders.py::test_bulk_order")
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert out.index("1. shop/orders.py::unit_price") < out.index("2. shop/orders.py::order_total")
    assert "Function: shop/orders.py::unit_price (suspect 1 of 2: 1/1 failing tests run it" in out
    fixed = (root / "shop" / "orders.py").read_text()
    assert fixed != ORDERS and "def order_total" in fixed
    assert fixed.split("def order_total")[1] == ORDERS.split("def order_total")[1]  # untouched
    check = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=root, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout


CHECKS = """def raises(error, call):
    try:
        call()
    except error:
        return True
    return False
"""
COUNTS = """def parse_count(text):
    count = int(text)
    if count < 0:
        raise ValueError(text)
    return count
"""
# A count must be positive: `< 0` should be `<= 0`. The failing test checks it with the
# package's own helper, whose `return False` line only the failing test runs: the helper ranks
# first, and `return True` there makes the failing test pass; the helper's own tests refuse it.
COUNT_TESTS = """from pkg.checks import raises
from pkg.counts import parse_count


def test_count():
    assert parse_count("3") == 3


def test_negative():
    assert raises(ValueError, lambda: parse_count("-1"))


def test_zero():
    assert raises(ValueError, lambda: parse_count("0"))
"""
CHECK_TESTS = """from pkg.checks import raises


def test_raises():
    assert raises(KeyError, lambda: {}["a"])


def test_does_not_raise():
    assert not raises(KeyError, lambda: {"a": 1}["a"])
"""


def test_a_fix_that_breaks_the_suspect_s_own_tests_is_refused_and_the_walk_goes_on(tmp_path):
    """From the failure, a suspect's fix is checked with the tests that exercise it (as
    discovery finds them with the function given): the helper's edit that passes the failing
    test and breaks the helper's own test is refused, and the walk goes on to the function the
    bug is in."""
    root = _package(tmp_path / "p", "pkg/counts.py", COUNTS, COUNT_TESTS)
    (root / "pkg" / "checks.py").write_text(CHECKS)
    (root / "tests" / "test_checks.py").write_text(CHECK_TESTS)
    done = _fix_test(root, "tests/test_counts.py::test_zero")
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert out.index("1. pkg/checks.py::raises") < out.index("2. pkg/counts.py::parse_count")
    assert "Function: pkg/counts.py::parse_count (suspect 2 of 2" in out
    assert "tests/test_checks.py::test_does_not_raise" in out  # why the helper's fix was refused
    assert (root / "pkg" / "checks.py").read_text() == CHECKS
    assert "if count <= 0:" in (root / "pkg" / "counts.py").read_text()


def test_fix_needs_a_function_or_a_test(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "selfdebug", "fix"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "give the function (path/to/module.py::qualname) or a failing --test" in done.stderr


MONEY = """class Money:
    def __init__(self, cents):
        self.cents = cents

    def __eq__(self, other):
        return isinstance(other, Money) and self.cents == other.cents

    def __repr__(self):
        return f"Money({self.cents})"


def logged(function):
    def wrapper(*args):
        return function(args[0], args[0])

    return wrapper


@logged
def add(a, b):
    return Money(a.cents + b.cents)
"""
# The bug is in `logged`'s nested wrapper (it passes the first argument twice); the failing assert
# compares Money objects, so pytest calls Money.__repr__ only to describe the failure.
MONEY_TESTS = """from money import Money, add


def test_add():
    assert add(Money(1), Money(2)) == Money(3)
"""


def test_nested_functions_count_in_their_definer_and_failure_reports_are_not_traced(tmp_path):
    root = tmp_path / "money_project"
    root.mkdir()
    (root / "money.py").write_text(MONEY)
    (root / "test_money.py").write_text(MONEY_TESTS)
    found = _localize(root, ["test_money.py::test_add"])
    names = [s.qualname for s in found.suspects]
    assert "logged" in names and not any("<locals>" in n for n in names)
    assert "Money.__repr__" not in names  # run only to describe the failed assert
    assert set(names) <= {"logged", "add", "Money.__init__", "Money.__eq__"}


def _suspect(name: str) -> Suspect:
    return Suspect("m.py", name, 1, 0.5, 1, 1, 0, 3)


def _walk(
    names: list[str], results: dict[str, bool | str], mode: types.Mode = "auto", **options
) -> list[SuspectAttempt]:
    """repair_suspects over suspects `names`; `results`: which sessions fix, or "partial" (a
    missing name: its request cannot be built; "name:search" / "name:model" / "name:beside":
    only that stage's session)."""
    found = FailureLocalization(["t.py::test_x"], suspects=[_suspect(n) for n in names])

    def build(suspect: Suspect) -> DebugRequest:
        if not any(key.split(":")[0] == suspect.qualname for key in results):
            raise RequestError(f"no function `{suspect.qualname}`")
        request = new_request(Path("m.py"), suspect.qualname, Path("."), ["t.py::test_x"])
        return dataclasses.replace(request, mode=mode)

    def run(_suspect: Suspect, request: DebugRequest) -> DebugResult:
        stage = "search" if request.mode == "search" else "model"
        if request.target.source_override is not None or request.target.pinned_files:
            stage = "beside"  # a search beside another function's partial fix
        name = request.target.qualname
        fixed = results.get(name, results.get(f"{name}:{stage}", False))
        partial = fixed == "partial"  # one of the two failing tests passes
        fixed = fixed is True
        return DebugResult(
            stop_reason="passed" if fixed else "no_improvement", turns=1, mode="search",
            original_function="", fixed_function="x" if fixed or partial else None,
            fixed_file="x" if fixed or partial else None,
            diff="", explanation="", chosen_before=types.TestTally(0, 2),
            chosen_after=types.TestTally(2 if fixed else 1, 2) if fixed or partial else None,
        )  # fmt: skip

    return repair_suspects(found, build, run, **options)


def test_the_walk_stops_at_the_first_fix_and_skips_a_suspect_it_cannot_debug():
    attempts = _walk(["a", "gone", "b", "c"], {"a": False, "b": True, "c": True}, tried=4)
    assert [a.suspect.qualname for a in attempts] == ["a", "gone", "b"]
    assert attempts[1].error == "no function `gone`" and attempts[1].result is None
    assert attempts[2].why.startswith("suspect 3 of 4: ")
    assert (
        attempts[2].request is not None
        and attempts[2].request.target.tests_found_by == attempts[2].why
    )
    shown = reported(attempts)
    assert shown is not None and shown.suspect.qualname == "b"


def test_a_fix_the_walk_refuses_is_no_fix_nor_evidence_and_the_walk_goes_on():
    def vet(attempt: SuspectAttempt, _left: float | None) -> str:
        return "it breaks the helper's own test" if attempt.suspect.qualname == "a" else ""

    attempts = _walk(["a", "b", "c"], {"a": True, "b": True, "c": True}, "search", vet=vet)
    assert [a.suspect.qualname for a in attempts] == ["a", "b"]
    refused, fixed = attempts
    assert refused.refused == "it breaks the helper's own test"
    assert refused.result is not None and not refused.result.success
    assert refused.result.refused == ["the walk: it breaks the helper's own test"]
    assert fixed.result is not None and fixed.result.success and not fixed.refused
    assert search_evidence(attempts) == {"m.py::b": 2}  # the refused edit points nowhere
    shown = reported(attempts)
    assert shown is not None and shown.suspect.qualname == "b"


def test_a_fix_found_as_the_budget_ends_is_kept_unchecked_with_a_warning():
    vetted = []
    ticks = iter([0.0, 0.0, 120.0])  # the start, before the session, after it: none left

    def vet(attempt: SuspectAttempt, left: float | None) -> str:
        vetted.append(left)
        return "never asked"

    attempts = _walk(["a", "b"], {"a": True, "b": True}, "search", vet=vet, budget_s=100.0,
                     clock=lambda: next(ticks))  # fmt: skip
    (fixed,) = attempts
    assert vetted == [] and not fixed.refused
    assert fixed.result is not None and fixed.result.success
    assert fixed.result.warnings == [
        "the walk: not run with the tests of `a`: the time budget was spent"
    ]


def test_the_walk_shares_one_budget_between_its_sessions():
    ticks = iter([0.0, 0.0, 50.0, 120.0])  # the start, then before each suspect
    attempts = _walk(["a", "b", "c"], {"a": False, "b": False, "c": True}, budget_s=100.0,
                     clock=lambda: next(ticks))  # fmt: skip
    assert [a.suspect.qualname for a in attempts] == ["a", "b"]  # no time left for c
    first, second = (a.request for a in attempts)
    assert first is not None and first.budget.time_budget_s == 100.0
    assert second is not None and second.budget.time_budget_s == 50.0
    shown = reported(attempts)
    assert shown is not None and shown.suspect.qualname == "b"  # no fix: the last session


def test_an_auto_walk_runs_the_search_on_every_suspect_before_the_model_on_any():
    # b's one-token fix (the search's) comes before a's model-written one
    attempts = _walk(["a", "b"], {"a:model": True, "b:search": True})
    assert [(a.suspect.qualname, a.stage) for a in attempts] == [
        ("a", "edit search"),
        ("b", "edit search"),
    ]
    assert attempts[0].request is not None and attempts[0].request.mode == "search"
    attempts = _walk(["a", "b"], {"a:model": True, "b": False})
    assert [(a.suspect.qualname, a.stage) for a in attempts] == [
        ("a", "edit search"),
        ("b", "edit search"),
        ("a", "model"),
    ]
    model = attempts[-1].request
    assert model is not None and (model.mode, model.auto_search) == ("auto", False)
    shown = reported(attempts)
    assert shown is not None and (shown.suspect.qualname, shown.stage) == ("a", "model")
    # the model's steps on the first suspect only, unless asked for more
    attempts = _walk(["a", "b"], {"a": False, "b:model": True})
    assert [a.stage for a in attempts] == ["edit search", "edit search", "model"]
    attempts = _walk(["a", "b"], {"a": False, "b:model": True}, model_tried=2)
    assert [(a.suspect.qualname, a.stage) for a in attempts][-1] == ("b", "model")
    assert attempts[-1].result is not None and attempts[-1].result.success
    # the model goes first where the search made a failing test pass
    attempts = _walk(["a", "b"], {"a": False, "b:search": "partial", "b:model": True})
    assert [(a.suspect.qualname, a.stage) for a in attempts][-1] == ("b", "model")
    assert attempts[-1].why.startswith("suspect 2 of 2")
    # another mode runs whole, once per suspect
    attempts = _walk(["a", "b"], {"a": False, "b": False}, mode="ut")
    assert [(a.suspect.qualname, a.stage) for a in attempts] == [("a", ""), ("b", "")]


def test_once_the_search_ran_the_suspects_where_an_edit_made_failing_tests_pass_rank_first():
    attempts = _walk(["a", "b", "c"], {"a": False, "b": False, "c:search": "partial"},
                     model_tried=0, pairs="no")  # fmt: skip
    suspects = [_suspect(name) for name in "abc"]
    assert [s.qualname for s in ranked_by_evidence(suspects, attempts)] == ["c", "a", "b"]
    found = FailureLocalization(["t.py::test_x"], suspects=suspects)
    table = evidence_table(found, attempts)
    assert table[:2] == ["Suspects once the edits count:",
                         "  1. m.py::c: an edit made 1 more failing test pass"]  # fmt: skip
    assert table[2].startswith("  2. m.py::a: ")
    # nothing gained anywhere: the spectrum's order stands and nothing is printed
    attempts = _walk(["a", "b"], {"a": False, "b": False}, model_tried=0, pairs="no")
    assert [s.qualname for s in ranked_by_evidence(suspects[:2], attempts)] == ["a", "b"]
    assert evidence_table(found, attempts) == []
    # the model's session on the moved suspect says why it went first
    attempts = _walk(["a", "b"], {"a": False, "b:search": "partial", "b:model": False})
    assert attempts[-1].stage == "model"
    assert attempts[-1].why.endswith("; an edit made 1 more failing test pass here")


def test_a_partial_fix_in_one_function_is_searched_on_beside_the_other_suspects():
    attempts = _walk(["a", "b", "c"], {"a:search": "partial", "b": False, "c": False})
    paired = [a for a in attempts if a.base is not None]
    assert [a.suspect.qualname for a in paired] == ["b", "c"]  # after every first search
    assert [a.stage for a in attempts[:3]] == ["edit search"] * 3
    for attempt in paired:
        request = attempt.request
        assert request is not None and request.mode == "search"
        assert request.target.source_override == "x"  # the same file: a's edited text is searched
        assert attempt.why.endswith("; beside the edit in `a`")
    assert attempts[-1].stage == "model"  # then the model, on the partial fix first
    assert not [a for a in _walk(["a", "b"], {"a:search": "partial", "b": False}, pairs="no")
                if a.base is not None]  # fmt: skip
    # a fix found beside the partial one changes both functions
    attempts = _walk(["a", "b"], {"a:search": "partial", "b:beside": True})
    shown = reported(attempts)
    assert shown is not None and shown.base is not None
    assert shown.functions() == "`a` and `b`"
    assert shown.fix_files() == {Path("m.py"): "x"}  # one file: its text holds both edits


def test_a_suspect_s_session_gets_the_failing_tests_beside_the_given_one_that_run_it():
    found = FailureLocalization(["t.py::test_x[1]"])
    suspect = Suspect("m.py", "f", 1, 0.5, 2, 3, 0, 3,
                      failing_tests=("t.py::test_x[1]", "t.py::test_x[2]"))  # fmt: skip
    assert failing_tests_for(found, suspect) == ["t.py::test_x[1]", "t.py::test_x[2]"]


def test_a_fix_of_two_functions_in_two_files_from_a_failing_test(tmp_path):
    """Each bound is off by one in its own module, and the failing test needs both: the search
    makes one bound's own test pass (a partial fix, guarded by a test that passes), then
    searches the other suspects with that edit in place; the CLI writes both files."""
    root = bounds_project(tmp_path / "bounds_project")
    done = _fix_test(root, "tests/test_bounds.py::test_bounds")
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert re.search(r"Functions: `(lower|upper)_bound` and `(lower|upper)_bound`", out), out
    assert "beside the edit in `" in out
    assert (root / "pkg" / "low.py").read_text() == "def lower_bound(x):\n    return x - 1\n"
    assert (root / "pkg" / "high.py").read_text() == "def upper_bound(x):\n    return x + 1\n"
    check = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=root, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout
