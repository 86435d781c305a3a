"""The edit search's repairs beyond one token (issue 26): each class of edit on a small real
pytest project that the one-token edits cannot fix, found by `mode search` with the REAL runner
and no model call."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.search.edits import generate_edits
from selfdebug.server.engine.search.evidence import (
    NOTHING_EXPECTED,
    Expected,
    Mismatch,
    expected_from,
)
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


GUARD = Case(
    "mean",
    """def mean(values):
    total = 0
    for v in values:
        total += v
    return total / len(values)
""",
    """from mean import mean


def test_empty_is_zero():
    assert mean([]) == 0


def test_three():
    assert mean([1, 2, 3]) == 2
""",
    ("test_empty_is_zero",),
    "    if not values:\n        return 0\n",
    "guard-returning-empty",
)
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
SLICE = Case(
    "rotate",
    """def rotate(items, k):
    head = items[:k]
    return items + head
""",
    """from rotate import rotate


def test_by_one():
    assert rotate([1, 2, 3, 4], 1) == [2, 3, 4, 1]


def test_by_none():
    assert rotate([1, 2], 0) == [1, 2]
""",
    ("test_by_one",),
    "    return items[k:] + head\n",
    "complementary-slice",
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
SETUP_GUARD = Case(
    "summary",
    """def summary(values, name):
    report = {"name": name, "count": len(values)}
    report["mean"] = sum(values) / len(values)
    return report
""",
    """from summary import summary


def test_empty_has_no_mean():
    assert summary([], "x") == {"name": "x", "count": 0}


def test_mean():
    assert summary([1, 3], "y") == {"name": "y", "count": 2, "mean": 2.0}
""",
    ("test_empty_has_no_mean",),
    "    if not values:\n        return report\n    report[",
    "guard-returning-known",
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
LOOP_COUNTER = Case(
    "repeat",
    """def repeat(text, times):
    out = ""
    while times:
        out += text
    return out
""",
    """from repeat import repeat


def test_twice():
    assert repeat("ab", 2) == "abab"


def test_none():
    assert repeat("x", 0) == ""
""",
    ("test_twice",),
    "        out += text\n        times -= 1\n",
    "loop-counter-step",
)
COLLECTION_ADD = Case(
    "first_repeat",
    """def first_repeat(items):
    seen = set()
    for item in items:
        if item in seen:
            return item
    return None
""",
    """from first_repeat import first_repeat


def test_repeated():
    assert first_repeat([1, 2, 1]) == 1


def test_none_repeated():
    assert first_repeat([1, 2]) is None
""",
    ("test_repeated",),
    "            return item\n        seen.add(item)\n",
    "collection-add",
)
LITERAL_EVERYWHERE = Case(
    "middle_initial",
    """def middle_initial(names):
    if len(names) < 3:
        return " "
    initial = names[1][:1]
    return initial or " "
""",
    """from middle_initial import middle_initial


def test_two_names():
    assert middle_initial(["ann", "cy"]) == ""


def test_empty_middle():
    assert middle_initial(["ann", "", "cy"]) == ""


def test_three_names():
    assert middle_initial(["ann", "bo", "cy"]) == "b"
""",
    ("test_two_names", "test_empty_middle"),
    '        return ""\n    initial = names[1][:1]\n    return initial or ""\n',
    "literal-everywhere",
)
EMPTY_SUBSET = Case(
    "choose",
    """def choose(items, k):
    if k == 0:
        return []
    if not items:
        return []
    first, rest = items[0], items[1:]
    return [[first] + c for c in choose(rest, k - 1)] + choose(rest, k)
""",
    """from choose import choose


def test_one_of_two():
    assert choose([1, 2], 1) == [[1], [2]]


def test_from_nothing():
    assert choose([], 1) == []
""",
    ("test_one_of_two",),
    "    if k == 0:\n        return [[]]\n",
    "nested-empty-list",
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
OPTIONAL_ITEM = Case(
    "usage",
    """def usage(prog, options, args):
    pieces = [options]
    pieces.extend(args)
    return " ".join([prog, *pieces])
""",
    """from usage import usage


def test_no_options():
    assert usage("cp", "", ["SRC", "DST"]) == "cp SRC DST"


def test_options():
    assert usage("cp", "[OPTIONS]", ["SRC"]) == "cp [OPTIONS] SRC"
""",
    ("test_no_options",),
    "    pieces = [options] if options else []\n",
    "empty-guarded-list",
)
SEPARATOR = Case(
    "qualified",
    """def qualified(module, name):
    if not module:
        return name
    return module + name
""",
    """from qualified import qualified


def test_dotted():
    assert qualified("os", "path") == "os.path"


def test_top_level():
    assert qualified("", "os") == "os"
""",
    ("test_dotted",),
    '    return module + "." + name\n',
    "lost-separator",
)
ELSE_RAISE = Case(
    "parse_size",
    """def parse_size(text):
    if text.endswith("k"):
        size = int(text[:-1]) * 1024
    elif text.isdigit():
        size = int(text)
    return size
""",
    """import pytest

from parse_size import parse_size


def test_kilobytes():
    assert parse_size("2k") == 2048


def test_bytes():
    assert parse_size("12") == 12


def test_nonsense():
    with pytest.raises(ValueError):
        parse_size("big")
""",
    ("test_nonsense",),
    "        size = int(text)\n    else:\n        raise ValueError\n",
    "else-raise",
    Expected(raises=("ValueError",)),
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
TESTED_CHARACTER = Case(
    "count_open",
    """def count_open(text):
    count = 0
    for char in text:
        if char == "(":
            count += 1
    return count
""",
    """from count_open import count_open


def test_brackets():
    assert count_open("[[]]") == 2


def test_one_open():
    assert count_open("[]]") == 1
""",
    ("test_brackets", "test_one_open"),
    '        if char == "[":\n',
    "test-character",
    Expected(characters=("[", "]")),
)
VALUE_AT_HAND = Case(
    "max_gain",
    """def max_gain(prices):
    best = 0
    low = prices[0]
    for price in prices:
        low = min(low, price)
        best = max(best, price - min(prices))
    return best
""",
    """from max_gain import max_gain


def test_low_comes_later():
    assert max_gain([3, 5, 1]) == 2


def test_rising():
    assert max_gain([1, 2]) == 1
""",
    ("test_low_comes_later",),
    "        best = max(best, price - low)\n",
    "call-to-local",
)
WRAPPED_TWICE = Case(
    "usage",
    """def usage(name, choices=None, required=True):
    metavar = choices_metavar(choices) if choices else name.upper()
    if not required:
        metavar = f"[{metavar}]"
    return f"Usage: prog {metavar}"


def choices_metavar(choices):
    return "[" + "|".join(choices) + "]"
""",
    """from usage import usage


def test_optional_choice():
    assert usage("mode", ["a", "b"], required=False) == "Usage: prog [a|b]"


def test_optional_name():
    assert usage("mode", required=False) == "Usage: prog [MODE]"


def test_required_choice():
    assert usage("mode", ["a", "b"]) == "Usage: prog [a|b]"


def test_required_name():
    assert usage("mode") == "Usage: prog MODE"
""",
    ("test_optional_choice",),
    "        if not (metavar.startswith('[') and metavar.endswith(']')):\n"
    '            metavar = f"[{metavar}]"\n',
    "wrap-guard",
    Expected(mismatches=(Mismatch("Usage: prog [[a|b]]", "Usage: prog [a|b]"),)),
)
CASES = [GUARD, MISSING_RETURN, SWAPPED, CONSTANT, SLICE, PAIR, SETUP_GUARD, F_STRING,
         LOOP_COUNTER, COLLECTION_ADD, LITERAL_EVERYWHERE, EMPTY_SUBSET, UNPACKING,
         OPTIONAL_ITEM, SEPARATOR, ELSE_RAISE, RAISED_INSTEAD, TESTED_CHARACTER,
         VALUE_AT_HAND, WRAPPED_TWICE]  # fmt: skip


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
            file=root / f"{case.name}.py",
            qualname=case.name,
            project_root=root,
            tests=chosen,
            wider_tests=wider,
            mode="search",
            test_timeout_s=2.0,  # `repeat` hangs before its fix
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
            failing("E  assert 0 == 2\nE   +  where 0 = count_open('[[]]')"),
            results.TestResult("t.py::ok", "passed", longrepr="pytest.raises(OSError)"),
        ],
        isolation="bwrap",
        duration=0.1,
    )
    expected = expected_from(run)
    assert expected.raises == ("ParserError", "KeyError", "LookupError")
    assert expected.characters == ("[", "]")
    nothing = expected_from(results.RunResult([failing("assert 1 == 2")], "bwrap", 0.1))
    assert nothing == NOTHING_EXPECTED


def test_failing_string_comparisons_give_what_was_got_and_what_was_wanted():
    def failing(op: str, left: str, right: str, message: str = "") -> results.TestResult:
        return results.TestResult(
            "t.py::t", "failed", message=message, assert_op=op, assert_left=left,
            assert_right=right,
        )  # fmt: skip

    run = results.RunResult(
        [
            failing("==", "'[[a]]'", "'[a]'"),  # pytest: the value got on the left
            failing("in", "'[default: \"\"]'", "'  --n  [default: ]'"),  # wanted inside got
            failing("==", "3", "4"),  # not strings: nothing to read
            results.TestResult("t.py::u", "failed", message="AssertionError: 'ab' != 'a b'"),
        ],
        isolation="bwrap",
        duration=0.1,
    )
    assert expected_from(run).mismatches == (
        Mismatch("[[a]]", "[a]"),
        Mismatch("  --n  [default: ]", '[default: ""]', inside=True),
        Mismatch("ab", "a b"),  # unittest's order says nothing: both ways
        Mismatch("a b", "ab"),
    )


def test_the_wrap_guard_needs_a_failing_comparison_that_shows_the_wrapping_twice():
    for case in (WRAPPED_TWICE,):
        lines = {n: 0 for n in range(2, case.code.count("\n") + 1)}
        unrelated = Expected(mismatches=(Mismatch("[x] 1", "[x] 2"),))
        for expected in (NOTHING_EXPECTED, unrelated):
            edits = generate_edits(case.code, 1, lines, limit=300, expected=expected)
            assert not [e for e in edits if case.fixed_line in e.code]


def test_no_separator_between_numbers():
    code = "def f(a, b):\n    return a + 1 + b\n"
    edits = generate_edits(code, 1, {2: 0}, limit=300)
    assert [e.describe() for e in edits if '"."' in e.after] == ['line 2: `+` -> `+ "." +`']


def test_the_nearest_comparison_is_tried_first():
    """Of two replacements at one line that the tests cannot tell apart the first is proposed:
    the negation or the boundary, the commonest slips, come before the other comparisons."""
    for spelling, nearest in (("==", "!="), ("!=", "=="), (">", ">="), ("<=", "<")):
        code = f"def f(a, b):\n    return a {spelling} b\n"
        edits = [
            e for e in generate_edits(code, 1, {2: 0}) if e.edit_class == "comparison-operator"
        ]
        assert edits[0].after == nearest


NOT_MISSING = {
    "loop-counter-step": (  # each loop's body changes what its condition reads
        "def drain(stack, limit):\n"
        "    while stack:\n"
        "        stack.pop()\n"
        "    while limit:\n"
        "        limit //= 2\n"
        "    return stack\n"
    ),
    "collection-add": (  # the collection is filled
        "def unique(items):\n"
        "    seen = []\n"
        "    for item in items:\n"
        "        if item not in seen:\n"
        "            seen.append(item)\n"
        "    return seen\n"
    ),
}


@pytest.mark.parametrize("kind", sorted(NOT_MISSING))
def test_no_missing_update_where_nothing_is_missing(kind):
    code = NOT_MISSING[kind]
    edits = generate_edits(code, 1, {n: 0 for n in range(2, 7)}, limit=300)
    assert edits and not [e for e in edits if e.edit_class == kind]


def test_guards_use_values_the_function_returns_and_loop_breaks():
    code = (
        "def walk(node):\n"
        "    seen = 0\n"
        "    while True:\n"
        "        if node.next is None:\n"
        "            return False\n"
        "        node = node.next\n"
        "        seen += 1\n"
    )
    edits = generate_edits(code, 1, {2: 0, 4: 0}, limit=300)
    inserted = {
        e.after.strip().replace("\n", ";") for e in edits if e.edit_class.startswith("guard-")
    }
    assert "if not node:;            return False" in {
        i.replace("        if", "if") for i in inserted
    }
    assert any(i.endswith("break") for i in inserted)  # a loop's guard may leave it
    assert not any("seen" in i.split(";")[1] for i in inserted if "return" in i)  # not returned


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


def test_a_guard_at_the_top_is_tried_when_coverage_ranks_those_lines_out():
    """A missing base case has no line of its own; the lines every test runs rank last. Guards
    at the function's entry points come after every ranked edit, a value the function
    returns before an empty value nothing suggests."""
    code = (
        "def label(obj, name):\n"
        "    text = name.strip()\n"
        "    if obj.hidden:\n"
        "        return text.lower()\n"
        "    return text\n"
    )
    edits = generate_edits(code, 1, {4: 0}, limit=300)  # only line 4 ranked
    guards = [e for e in edits if e.edit_class.startswith("guard-")]
    assert edits[: -len(guards)] and all(
        not e.edit_class.startswith("guard-") for e in edits[: -len(guards)]
    )
    after_setup = [e for e in guards if e.line == 3]
    assert "if not obj:\n        return text\n" in {e.after.lstrip() for e in after_setup}
    assert {e.size for e in after_setup if "return text" in e.after} == {3}
    at_top = [e for e in guards if e.line == 2]
    assert at_top and {e.size for e in at_top} == {4}  # `text` is not set yet: empty values


def test_lines_that_tie_with_the_last_top_line_are_all_edited():
    from selfdebug.server.engine.search.edit_search import SearchSettings, candidate_edits
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
