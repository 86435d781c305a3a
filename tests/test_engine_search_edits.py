"""The edit search's repairs beyond one token (issue 26): each class of edit on a small real
pytest project that the one-token edits cannot fix, found by `mode search` with the REAL runner
and no model call."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.evidence import NOTHING_EXPECTED, Evidence, Expected
from selfdebug.server.engine.search.edits import generate_edits
from selfdebug.server.engine.types import Budget, TargetSpec
from selfdebug.server.runner import results


@dataclass(frozen=True)
class Case:
    name: str  # the module and the function
    code: str
    tests: str
    failing: tuple[str, ...]
    fixed_line: str  # a line of the fixed function
    edit_class: str  # the class of the edit that fixes it (registry.py)
    expected: Expected = NOTHING_EXPECTED  # what the failing tests' failure text says


MISSING_RETURN = Case(
    "find",
    """def find(items, target, lo=0):
    if lo >= len(items):
        return -1
    if items[lo] == target:
        return lo
    find(items, target, lo + 1)
""",
    """from find import find


def test_last():
    assert find([4, 5, 6], 6) == 2


def test_first():
    assert find([4], 4) == 0


def test_missing():
    assert find([], 1) == -1
""",
    ("test_last",),
    "    return find(items, target, lo + 1)\n",
    "missing-return",
)
SWAPPED = Case(
    "prefix",
    """def prefix(values):
    sums = []
    total = 0
    for v in values:
        total += v
        sums.append(total)
    return sums
""",
    '''from prefix import prefix


def test_sums_before_each():
    """The sum of the values before each one."""
    assert prefix([1, 2, 3]) == [0, 1, 3]


def test_empty():
    assert prefix([]) == []
''',
    ("test_sums_before_each",),
    "        sums.append(total)\n        total += v\n",
    "swapped-statements",
)
CONSTANT = Case(
    "percent",
    """def percent(x):
    if x < 0:
        return 0
    if x > 100:
        return 0
    return x
""",
    """from percent import percent


def test_above():
    assert percent(150) == 100


def test_below():
    assert percent(-5) == 0


def test_inside():
    assert percent(50) == 50
""",
    ("test_above",),
    "    if x > 100:\n        return 100\n",
    "other-literal",
)
PAIR = Case(
    "between",
    """def between(values, lo, hi):
    count = 0
    for v in values:
        if lo < v < hi:
            count += 1
    return count
""",
    """from between import between


def test_ends_included():
    assert between([1, 2, 3, 4, 5], 2, 4) == 3


def test_one_point():
    assert between([2], 2, 2) == 1


def test_both_ends():
    assert between([5, 1], 1, 5) == 2


def test_none():
    assert between([], 0, 9) == 0
""",
    ("test_ends_included", "test_one_point", "test_both_ends"),
    "        if lo <= v <= hi:\n",
    "pair",
)
F_STRING = Case(
    "describe",
    """def describe(name, size):
    if size < 0:
        raise ValueError("size must be >= 0")
    return ("{name}: "
            "{size} bytes")
""",
    """import pytest

from describe import describe


def test_names_the_size():
    assert describe("a.txt", 3) == "a.txt: 3 bytes"


def test_negative():
    with pytest.raises(ValueError):
        describe("a.txt", -1)
""",
    ("test_names_the_size",),
    """    return (f"{name}: "
            f"{size} bytes")""",
    "missing-f-prefix",
)
UNPACKING = Case(
    "us_date",
    """def us_date(text):
    day, month, year = text.split("/")
    return int(year), int(month), int(day)
""",
    """from us_date import us_date


def test_new_year_eve():
    assert us_date("12/31/1999") == (1999, 12, 31)
""",
    ("test_new_year_eve",),
    '    month, day, year = text.split("/")\n',
    "swapped-unpacking",
)
RAISED_INSTEAD = Case(
    "ratio",
    """def ratio(a, b):
    if b == 0:
        raise ValueError("b is zero")
    return a / b
""",
    """import pytest

from ratio import ratio


def test_half():
    assert ratio(1, 2) == 0.5


def test_negative():
    assert ratio(1, -2) == -0.5


def test_by_zero():
    with pytest.raises(ZeroDivisionError):
        ratio(1, 0)
""",
    ("test_by_zero",),
    '        raise ZeroDivisionError("b is zero")\n',
    "raised-exception",
    Expected(raises=("ZeroDivisionError",)),
)
CASES = [MISSING_RETURN, SWAPPED, CONSTANT, PAIR, F_STRING, UNPACKING, RAISED_INSTEAD]


def _project(root: Path, case: Case) -> Path:
    root.mkdir()
    (root / f"{case.name}.py").write_text(case.code, encoding="utf-8")
    (root / f"test_{case.name}.py").write_text(case.tests, encoding="utf-8")
    return root


def _ids(case: Case) -> tuple[list[str], list[str]]:
    names = [line[4:].split("(")[0] for line in case.tests.splitlines() if line.startswith("def ")]
    nodeid = f"test_{case.name}.py::{{}}".format
    return [nodeid(n) for n in names if n in case.failing], [
        nodeid(n) for n in names if n not in case.failing
    ]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_search_fixes_what_one_token_cannot(tmp_path, case):
    root = _project(tmp_path / case.name, case)
    chosen, wider = _ids(case)
    result = run_session(
        DebugRequest(
            TargetSpec(
                file=root / f"{case.name}.py",
                qualname=case.name,
                project_root=root,
                tests=chosen,
                wider_tests=wider,
            ),
            mode="search",
            budget=Budget(test_timeout_s=2.0),  # `repeat` hangs before its fix
        ),
        ScriptedBackend(["never asked"]),
    )
    assert result.success, (result.error, result.warnings)
    assert result.model_calls == 0 and result.found_by.startswith("edit search at line ")
    assert case.fixed_line in result.fixed_file
    assert (root / f"{case.name}.py").read_text() == case.code  # the user's file untouched


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_fix_is_of_the_new_class(case):
    """The fixing edit is made by the class under test (so the case above tests it)."""
    lines = {n: 0 for n in range(2, case.code.count("\n") + 1)}
    edits = generate_edits(case.code, 1, lines, limit=300, expected=case.expected)
    fixing = [e for e in edits if case.fixed_line in e.code]
    assert fixing and case.edit_class in {e.edit_class for e in fixing}


def test_what_failing_tests_expect():
    def failing(longrepr: str) -> results.TestResult:
        return results.TestResult("t.py::t", "failed", longrepr=longrepr)

    run = results.RunResult(
        [
            failing(">       with pytest.raises(errors.ParserError):\nE   Failed: DID NOT RAISE"),
            failing("    self.assertRaises(KeyError, d.pop, 1)"),
            failing("    assert raises(LookupError, lambda: list(f(x)))"),
            results.TestResult("t.py::ok", "passed", longrepr="pytest.raises(OSError)"),
        ],
        isolation="bwrap",
        duration=0.1,
    )
    expected = Evidence.of(run).expected
    assert expected.raises == ("ParserError", "KeyError", "LookupError")
    nothing = Evidence.of(results.RunResult([failing("assert 1 == 2")], "bwrap", 0.1)).expected
    assert nothing == NOTHING_EXPECTED


def test_the_nearest_comparison_is_tried_first():
    """Of two replacements at one line that the tests cannot tell apart the first is proposed:
    the negation or the boundary, the commonest slips, come before the other comparisons."""
    for spelling, nearest in (("==", "!="), ("!=", "=="), (">", ">="), ("<=", "<")):
        code = f"def f(a, b):\n    return a {spelling} b\n"
        edits = [
            e for e in generate_edits(code, 1, {2: 0}) if e.edit_class == "comparison-operator"
        ]
        assert edits[0].after == nearest


def test_pairs_come_last_and_name_both_changes():
    code = "def f(a, b):\n    return a < b and b > 0\n"
    edits = generate_edits(code, 1, {2: 0}, limit=60)
    pairs = [e for e in edits if e.edit_class == "pair"]
    assert pairs and edits[-len(pairs) :] == pairs
    few = generate_edits(code, 1, {2: 0}, limit=12)  # more singles than fit: pairs get a sixth
    assert [e.edit_class for e in few].count("pair") == 12 // 6 and few[:10] == edits[:10]
    first = pairs[0]
    assert first.size == sum(p.size for p in first.parts) and len(first.parts) == 2
    assert first.describe() == " and ".join(p.describe() for p in first.parts)


def test_f_prefix_only_where_every_field_names_a_value_in_scope():
    code = (
        "def f(user, items):\n"
        '    a = "{user} has {items[0]!r:>4}"\n'
        '    b = "{other} and {user}"\n'
        '    c = "{user}".format(user=1)\n'
        '    d = "{{user}} and {"\n'
        '    e = b"{user}"\n'
        "    return a, b, c, d, e\n"
    )
    edits = generate_edits(code, 1, {n: 0 for n in range(2, 8)}, limit=300)
    prefixed = [e for e in edits if e.edit_class == "missing-f-prefix"]
    assert [(e.line, e.after) for e in prefixed] == [(2, 'f"{user} has {items[0]!r:>4}"')]


def test_lines_that_tie_with_the_last_top_line_are_all_edited():
    from selfdebug.server.engine.judge.context import SearchSettings
    from selfdebug.server.engine.search.edit_search import candidate_edits
    from selfdebug.server.engine.search.localize import SuspiciousLine
    from selfdebug.server.engine.target import locate

    code = "def f(a, b, c, d):\n    a = a + 1\n    b = b + 1\n    c = c + 1\n    return a + b + c\n"
    target = locate(code, "f")
    lines = [SuspiciousLine(5, 1.0, 1, 1, 0, 1)] + [
        SuspiciousLine(n, 0.5, 1, 1, 1, 1) for n in (4, 3, 2)
    ]
    edits = candidate_edits(target, lines, SearchSettings(top_lines=2))
    edited = {e.line for e in edits if e.edit_class == "arithmetic-operator"}
    assert {2, 3, 4, 5} <= edited  # lines 3 and 2 tie with line 4, the second top line
    cut = [SuspiciousLine(5, 1.0, 1, 1, 0, 1), SuspiciousLine(4, 0.5, 1, 1, 1, 1),
           SuspiciousLine(3, 0.2, 1, 1, 1, 1)]  # fmt: skip
    edits = candidate_edits(target, cut, SearchSettings(top_lines=2))
    assert 3 not in {e.line for e in edits if e.edit_class == "arithmetic-operator"}


def test_an_edit_that_makes_every_return_the_same_constant_is_not_tried():
    """Seen from a failing test (toolz): `return False` -> `return True` in the test helper
    `raises` passed every test, as a function that ignores its argument does."""
    code = (
        "def raises(err, lamda):\n    try:\n        lamda()\n        return False\n"
        "    except err:\n        return True\n"
    )
    described = {(e.line, e.before, e.after) for e in generate_edits(code, 1, {4: 0, 6: 1})}
    assert not any(line == 4 and after == "True" for line, _, after in described)
    assert not any(line == 6 and after == "False" for line, _, after in described)
    # a constant return beside a computed one may still change
    other = "def f(x):\n    if x:\n        return x + 1\n    return 0\n"
    assert (4, "0", "1") in {(e.line, e.before, e.after) for e in generate_edits(other, 1, {4: 0})}


def _afters_by_line(code: str, ranks: dict[int, int], edit_class: str) -> dict[int, set[str]]:
    """What one class writes at each line of `code`."""
    made: dict[int, set[str]] = {}
    for edit in generate_edits(code, 1, ranks, classes={edit_class}):
        made.setdefault(edit.line, set()).add(edit.after)
    return made


def test_a_none_check_reads_the_conditions_values_and_keeps_its_precedence():
    """`none-check` (registry.py): a value the condition reads, or a parameter, checked first;
    an `or` condition is parenthesized under `and`; a value already compared with None is not
    checked again; a called function is no value."""
    code = (
        "def f(item, limit):\n    if item.size > limit or item.empty():\n        return 1\n"
        "    if item.size is None:\n        return 2\n"
    )
    made = _afters_by_line(code, {2: 0, 4: 0}, "none-check")
    condition = "item.size > limit or item.empty()"
    assert f"item is not None and ({condition})" in made[2]
    assert f"item.size is None or {condition}" in made[2]
    assert f"limit is not None and ({condition})" in made[2]  # a parameter, read or not
    assert not any("item.empty is" in after for after in made[2])  # called: not a value
    assert "item is None or item.size is None" in made[4]
    assert not any(after.startswith("item.size is") for after in made[4])  # checked already


def test_a_truth_test_becomes_a_none_test_on_each_operand_but_not_on_a_predicate_call():
    """`none-test` (registry.py): `x` -> `x is not None`, `not x` -> `x is None`, for the whole
    condition and each operand of its `and`/`or`, in an if, while or conditional expression;
    a call's truth is often its answer (`isinstance(...)`, `s.startswith(...)`): left alone."""
    code = (
        "def f(item, limit):\n    if item.size and not limit and isinstance(item, int):\n"
        "        return 1\n    return item.get(0) if item.ready() else item.cache.get(1)\n"
    )
    made = _afters_by_line(code, {2: 0, 4: 0}, "none-test")
    assert made[2] == {"item.size is not None", "limit is None"}
    assert 4 not in made  # `item.ready()` is a call
    ternary = "def g(x):\n    return x.name if x.cache[1] else ''\n"
    edits = generate_edits(ternary, 1, {2: 0}, classes={"none-test"})
    assert [e.after for e in edits] == ["x.cache[1] is not None"]


def test_a_failing_tests_type_error_calls_for_a_converted_value():
    """`converted-value` (registry.py) is made only when a failing test ended in a TypeError
    (engine/evidence.py reads it from the run); a stored name, a called function, the object whose
    attribute is taken and a value already converted are left alone."""
    type_error = results.TestResult("t.py::t", "failed", exc_type="builtins.TypeError")
    run = results.RunResult([type_error], isolation="bwrap", duration=0.1)
    assert Evidence.of(run).expected.failed_with == ("TypeError",)
    code = (
        "def f(path, items, n):\n    name = path.parent\n    first = str(items)[n]\n"
        "    return name, first\n"
    )
    lines = {2: 0, 3: 0}
    made = {
        (e.line, e.after)
        for e in generate_edits(code, 1, lines, expected=Evidence.of(run).expected, classes=None)
        if e.edit_class == "converted-value"
    }
    assert (2, "str(path.parent)") in made and (2, "int(path.parent)") in made
    afters = {after for _, after in made}
    assert not afters & {"str(name)", "str(path)", "list(str(items))", "str(str(items))"}
    assert not any("(items)" in after and "str(items)" not in after for after in afters)
    assert (3, "int(n)") in made and (3, "int(str(items)[n])") in made
    assert not [e for e in generate_edits(code, 1, lines) if e.edit_class == "converted-value"]


def test_the_same_edit_is_made_at_every_place_of_the_body_that_writes_the_text():
    """`same-edit-everywhere` (classes/same_edit_everywhere.py): a literal returned on two paths
    changes at both; a name is not matched inside another name or after a dot, an attribute
    only after one; the header's parameters stay."""
    code = (
        "def f(size, sizes):\n    if size < 0:\n        return ' '\n    n = sizes.get(size, '')\n"
        "    return ' ' + str(n) + x.size\n"
    )
    made = {e.describe(): e for e in generate_edits(code, 1, {3: 0, 4: 0},
                                                  classes={"same-edit-everywhere"})}  # fmt: skip
    literal = next(e for e in made.values() if e.before == "' '")
    assert literal.lines == (3, 5) and literal.code.count("' '") == 0
    renamed = [e for e in made.values() if e.before == "size"]
    assert renamed
    for edit in renamed:  # `size` -> another name at lines 2 and 4, never in `sizes` or `x.size`
        assert edit.lines == (2, 4) and edit.code.startswith("def f(size, sizes):")
        assert "sizes.get(" in edit.code and "x.size" in edit.code


def test_a_method_is_made_its_sibling_and_nothing_else_is():
    """`sibling-method` (registry.py): a listed method's siblings of the same arguments, at the
    call's method name only; an unlisted method or a plain function call is left."""
    code = (
        "def f(text, items):\n    head, _, tail = text.partition('-')\n"
        "    items.pop(0)\n    return split(text) + text.upper()\n"
    )
    made = _afters_by_line(code, {2: 0, 3: 0, 4: 0}, "sibling-method")
    assert made == {2: {"rpartition"}, 3: {"get", "popleft"}}


def test_a_method_names_its_own_class_at_run_time_and_a_static_one_does_not():
    """`own-class-name` (registry.py): `C` -> `type(self)` in a method, `cls` in a classmethod,
    the first parameter's own name; nothing in a staticmethod or a plain function."""
    method = "def copy(me):\n    return Box(me.size) if isinstance(me, Box) else None\n"
    edits = generate_edits(method, 1, {2: 0}, classes={"own-class-name"}, class_name="Box")
    assert {e.code.splitlines()[1].strip() for e in edits} == {
        "return type(me)(me.size) if isinstance(me, Box) else None",
        "return Box(me.size) if isinstance(me, type(me)) else None",
    }
    made = generate_edits("@classmethod\ndef make(cls):\n    return Box()\n", 1, {3: 0},
                          classes={"own-class-name"}, class_name="Outer.Box")  # fmt: skip
    assert [e.after for e in made] == ["cls"]
    static = "@staticmethod\ndef make():\n    return Box()\n"
    assert not generate_edits(static, 1, {3: 0}, classes={"own-class-name"}, class_name="Box")
    plain = "def make(x):\n    return Box(x)\n"
    assert not generate_edits(plain, 1, {2: 0}, classes={"own-class-name"})


def test_a_one_element_list_is_guarded_as_a_whole_value_and_parenthesized_as_an_operand():
    code = (
        "def pieces(self, extra, rest):\n"
        "    rv = [self.metavar]\n"
        "    both = [extra] + rest\n"
        "    [first] = rest\n"
        "    return [*rest]\n"
    )
    edits = generate_edits(code, 1, dict.fromkeys(range(1, 6), 0), classes={"empty-guarded-list"})
    made = {e.code.splitlines()[e.line - 1].strip() for e in edits}
    assert made == {
        "rv = [self.metavar] if self.metavar else []",
        "both = ([extra] if extra else []) + rest",
    }  # a stored list and a starred element are not values to guard


def test_an_attribute_the_function_adds_to_is_one_it_reads():
    """`self.balance += x` reads `self.balance`: the attribute another read may have meant
    (the interest on the opening balance where the current one was meant)."""
    code = (
        "def apply_interest(self):\n"
        "    interest = round(self.opening * self.rate, 2)\n"
        "    self.balance += interest\n"
        "    return interest\n"
    )
    edits = [e for e in generate_edits(code, 1, {2: 0}) if e.edit_class == "other-attribute"]
    assert ("opening", "balance") in {(e.before, e.after) for e in edits}
    without = [e for e in generate_edits(code.replace("+=", "="), 1, {2: 0})
               if e.edit_class == "other-attribute"]  # fmt: skip
    assert "balance" not in {e.after for e in without}  # only written: not one it reads
