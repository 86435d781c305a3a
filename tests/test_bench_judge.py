"""The strict judge (selfdebug/bench/judge.py): correct / plausible / wrong, with real pytest runs
of the judge plugin (no mocks): toy QuixBugs-like problems, a tiny real-style project, and the
rejudge command on a small results.jsonl."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from selfdebug.bench.datasets import Problem
from selfdebug.bench.judge import function_text, judge_problem, judge_real, same_code
from selfdebug.bench.rejudge import measure as rejudge
from selfdebug.bench.repair_report import ProblemOutcome, render_markdown


def problem(fixed: str, tests: str, entry: str, buggy: str = "") -> Problem:
    return Problem(
        id=f"toy/{entry}",
        source="toy",
        entry_point=entry,
        buggy=buggy or fixed,
        fixed=fixed,
        visible_tests=tests,
        hidden_tests=tests,
        visible_choice="visible_tests",
    )


DOUBLE = problem(
    'def double(x):\n    """Twice x."""\n    return 2 * x\n',
    "def test_one():\n    assert double(1) == 2\n\n\ndef test_three():\n"
    "    assert double(3) == 6\n",
    "double",
    buggy="def double(x):\n    return x + 1\n",
)


def test_the_reference_itself_is_correct_by_its_code(tmp_path: Path) -> None:
    same = "def double(x):\n    # no docstring, same code\n    return 2 * x\n"
    verdict = judge_problem(DOUBLE, same, tmp_path / "j")
    assert (verdict.verdict, verdict.how) == ("correct", "same code as the reference")


def test_an_equivalent_rewrite_is_correct_by_behaviour(tmp_path: Path) -> None:
    verdict = judge_problem(DOUBLE, "def double(x):\n    return x + x\n", tmp_path / "j")
    assert verdict.verdict == "correct", verdict
    assert "same behaviour on 4 calls of the tests" in verdict.how
    assert " and 0 generated" not in verdict.how


def test_a_difference_on_a_generated_input_is_plausible_and_shown(tmp_path: Path) -> None:
    candidate = "def double(x):\n    if x == 0:\n        return 1\n    return 2 * x\n"
    verdict = judge_problem(DOUBLE, candidate, tmp_path / "j")
    assert verdict.verdict == "plausible"
    assert verdict.differs_on == "double(0): reference returns 0; candidate returns 1"


def test_an_exception_against_a_result_is_a_difference(tmp_path: Path) -> None:
    # the tests call with 1 and 3 only: never negative numbers (their sign is kept), but 2
    candidate = (
        "def double(x):\n    if x == 2:\n        raise ValueError('two')\n    return 2 * x\n"
    )
    verdict = judge_problem(DOUBLE, candidate, tmp_path / "j")
    assert verdict.verdict == "plausible"
    assert (
        verdict.differs_on == "double(2): reference returns 4; candidate raises ValueError('two')"
    )


def test_a_failing_candidate_is_wrong_through_the_scoring(tmp_path: Path) -> None:
    from selfdebug.bench.repair import score_candidate

    scores = score_candidate(DOUBLE, DOUBLE.buggy, tmp_path / "score", 5.0)
    assert scores["verdict"] == "wrong"
    good = score_candidate(DOUBLE, "def double(x):\n    return x * 2\n", tmp_path / "s2", 5.0)
    assert good["verdict"] == "correct", good


FACTORIAL = problem(
    "def fact(n):\n    if n <= 1:\n        return 1\n    return n * fact(n - 1)\n",
    "def test_small():\n    assert fact(3) == 6\n\n\ndef test_five():\n    assert fact(5) == 120\n",
    "fact",
)


def test_a_recursive_function_is_compared_once_per_outer_call(tmp_path: Path) -> None:
    iterative = (
        "def fact(n):\n    out = 1\n    for i in range(2, n + 1):\n"
        "        out *= i\n    return out\n"
    )
    verdict = judge_problem(FACTORIAL, iterative, tmp_path / "a")
    assert verdict.verdict == "correct", verdict
    assert "on 4 calls of the tests" in verdict.how  # the recursive calls are not compared
    recursive = "def fact(n):\n    if n < 2:\n        return 1\n    return fact(n - 1) * n\n"
    assert judge_problem(FACTORIAL, recursive, tmp_path / "b").verdict == "correct"
    # differs on 6 only, a number the tests never reach (their calls: 3, 5 and below)
    six = (
        "def fact(n):\n    if n == 6:\n        return 0\n"
        "    return 1 if n <= 1 else n * fact(n - 1)\n"
    )
    verdict = judge_problem(FACTORIAL, six, tmp_path / "c")
    assert verdict.verdict == "plausible", verdict
    assert verdict.differs_on == "fact(6): reference returns 720; candidate returns 0"


SORTER = problem(
    "def sort_in_place(items):\n    items.sort()\n    return None\n",
    "def test_sorts():\n    xs = [3, 1, 2]\n    sort_in_place(xs)\n    assert xs == [1, 2, 3]\n",
    "sort_in_place",
)


def test_a_function_that_mutates_its_argument_is_compared_on_the_argument(tmp_path: Path) -> None:
    same = "def sort_in_place(items):\n    items[:] = sorted(items)\n"
    assert judge_problem(SORTER, same, tmp_path / "a").verdict == "correct"
    # the test's list is sorted all the same (the caller gets the reference's work), but the
    # candidate leaves duplicates out: a difference in the argument after the call
    dedup = "def sort_in_place(items):\n    items[:] = sorted(set(items))\n"
    verdict = judge_problem(SORTER, dedup, tmp_path / "b")
    assert verdict.verdict == "plausible", verdict
    assert "leaves the arguments as" in verdict.differs_on


COUNTER = problem(
    "class Counter:\n"
    "    def __init__(self):\n"
    "        self.__count = 0\n"
    "\n"
    "    def bump(self, by):\n"
    '        """Add `by` (at least 1)."""\n'
    "        self.__count += max(by, 1)\n"
    "        return self.__count\n",
    "def test_bump():\n    c = Counter()\n    assert c.bump(2) == 2\n    assert c.bump(3) == 5\n",
    "Counter.bump",
)


def test_a_method_with_a_private_attribute_is_compiled_with_its_class(tmp_path: Path) -> None:
    head = COUNTER.fixed.split("    def bump")[0]
    same = head + "    def bump(self, by):\n        self.__count = self.__count + max(1, by)\n"
    same += "        return self.__count\n"
    verdict = judge_problem(COUNTER, same, tmp_path / "a")
    assert verdict.verdict == "correct", verdict
    loose = (
        head + "    def bump(self, by):\n        self.__count += by\n        return self.__count\n"
    )
    verdict = judge_problem(COUNTER, loose, tmp_path / "b")
    assert verdict.verdict == "plausible", verdict
    assert verdict.differs_on.startswith("bump(Counter(_Counter__count=")


TALLY = problem(
    "class Key:\n"
    "    def __init__(self, name):\n"
    "        self.name = name\n"
    "\n\n"
    "class Tag:\n"
    "    def __init__(self, key):\n"
    "        self.key = key\n"
    "\n"
    "    def __eq__(self, other):\n"
    "        return type(other) is Tag and self.key == other.key\n"
    "\n"
    "    def __hash__(self):\n"
    "        return id(self.key)\n"
    "\n\n"
    "def tally(table, hits, seen):\n"
    '    """Count each hit into `table` (keyed by objects) and tell `seen` about it."""\n'
    "    for key in hits:\n"
    "        table[key] = table.get(key, 0) + 1\n"
    "        seen(key)\n"
    "    return {Tag(key) for key in table}\n",
    "from unittest.mock import Mock\n\n\n"
    "def test_tally():\n"
    "    a, b = Key('a'), Key('b')\n"
    "    table, seen = {a: 0, Tag(b): 0}, Mock()\n"
    "    assert len(tally(table, [a, a], seen)) == 2\n"
    "    assert table[a] == 2 and seen.call_count == 2\n",
    "tally",
)


def test_objects_hashed_or_compared_by_identity_and_mocks_are_compared_across_copies(
    tmp_path: Path,
) -> None:
    # the candidate runs on a deep copy of the test's arguments: keys and members hashed by
    # identity, an `__eq__` that compares a field by identity, and a Mock (whose deep copy is a
    # call on it) all differ from their copies, and an equivalent fix was called plausible
    head = TALLY.fixed.split("def tally")[0]
    same = head + (
        "def tally(table, hits, seen):\n"
        "    for key in hits:\n"
        "        table[key] = 1 + table.get(key, 0)\n"
        "        seen(key)\n"
        "    return set(Tag(key) for key in table)\n"
    )
    verdict = judge_problem(TALLY, same, tmp_path / "a")
    assert verdict.verdict == "correct", verdict
    twice = same.replace("1 + table", "2 + table")
    verdict = judge_problem(TALLY, twice, tmp_path / "b")
    assert verdict.verdict == "plausible", verdict
    assert "leaves the arguments as" in verdict.differs_on


def test_a_function_never_called_is_plausible_not_checked(tmp_path: Path) -> None:
    silent = problem(
        "def unused(x):\n    return x\n\n\ndef other():\n    return 1\n",
        "def test_other():\n    assert other() == 1\n",
        "unused",
    )
    verdict = judge_problem(
        silent, silent.fixed.replace("return x", "return (x)  # same"), tmp_path
    )
    assert verdict.verdict == "correct"  # same code: no run needed
    changed = silent.fixed.replace("return x\n", "return x if x else x\n")
    verdict = judge_problem(silent, changed, tmp_path / "b")
    assert verdict.verdict == "plausible"
    assert "behaviour not checked" in verdict.how


def test_function_text_and_same_code() -> None:
    module = (
        "import x\n\n\nclass A:\n    @staticmethod\n    def f(a):\n"
        "        '''doc'''\n        return a\n"
    )
    assert function_text(module, "A.f") == "@staticmethod\ndef f(a):\n    '''doc'''\n    return a\n"
    assert same_code(module, module.replace("'''doc'''", "'''other doc'''"), "A.f")
    assert not same_code(module, module.replace("return a", "return -a"), "A.f")


# -- a real-style project ------------------------------------------------------------------------
def write_project(root: Path, body: str) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("from pkg.core import clip\n", encoding="utf-8")
    (root / "pkg" / "core.py").write_text(body, encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_core.py").write_text(
        "from pkg import clip\n\n\ndef test_clip():\n    assert clip(5, 0, 3) == 3\n"
        "    assert clip(-1, 0, 3) == 0\n",
        encoding="utf-8",
    )
    (root / "tests" / "test_more.py").write_text(
        "from pkg.core import Box\n\n\ndef test_box():\n    assert Box(2, 9).inside(4) == 4\n",
        encoding="utf-8",
    )
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n', encoding="utf-8"
    )
    return root


REFERENCE_CORE = (
    "def clip(value, low, high):\n"
    "    return max(low, min(value, high))\n"
    "\n\nclass Box:\n"
    "    def __init__(self, low, high):\n"
    "        self.low, self.high = low, high\n"
    "\n"
    "    def inside(self, value):\n"
    "        return clip(value, self.low, self.high)\n"
)


def test_judge_real_runs_the_whole_suite_through_the_package(tmp_path: Path) -> None:
    from selfdebug.bench.real_cases import RealCase

    case = RealCase(
        id="toy/clip",
        repo="toy/toy",
        license="MIT",
        checkout="toy",
        commit="HEAD",
        function="pkg/core.py::clip",
        judge=("tests/test_core.py",),
        patch="",
    )
    reference = write_project(tmp_path / "ref", REFERENCE_CORE)
    # passes the judge file; differs on a call only the other test file makes (Box(2, 9).inside)
    wrong_low = REFERENCE_CORE.replace(
        "return max(low, min(value, high))",
        "if value < low:\n        return 0\n    return min(value, high)",
    )
    candidate = write_project(tmp_path / "cand", wrong_low)
    verdict = judge_real(case, candidate, reference, sys.executable)
    assert verdict.verdict == "plausible", verdict
    assert "reference returns" in verdict.differs_on

    equivalent = REFERENCE_CORE.replace(
        "return max(low, min(value, high))", "return max(low, high if value > high else value)"
    )
    verdict = judge_real(
        case, write_project(tmp_path / "eq", equivalent), reference, sys.executable
    )
    assert verdict.verdict == "correct", verdict
    assert "on 3 calls of the tests" in verdict.how  # both test files: the whole suite


# -- the report and the rejudge command -----------------------------------------------------------
def test_the_report_counts_the_three_verdicts() -> None:
    from selfdebug.bench.repair_report import build_report

    def outcome(pid: str, **fields: object) -> ProblemOutcome:
        base = {"has_candidate": True, "visible_passed": 1, "visible_total": 1}
        return ProblemOutcome(mode="ut", id=pid, source="toy", **{**base, **fields})  # type: ignore[arg-type]

    outcomes = [
        outcome("a", hidden_passed=2, hidden_total=2, verdict="correct"),
        outcome("b", hidden_passed=2, hidden_total=2, verdict="plausible", differs_on="f(0): x"),
        outcome("c", hidden_passed=1, hidden_total=2),
        outcome("d", hidden_passed=2, hidden_total=2),  # scored before the judge existed
        ProblemOutcome(mode="ut", id="e", source="toy"),
    ]
    report = build_report(outcomes, ["ut"], {})
    stats = report["modes"]["ut"]
    assert (stats["correct"], stats["plausible"], stats["wrong"], stats["unjudged"]) == (1, 1, 1, 1)
    assert stats["fixed_hidden"] == 3
    text = render_markdown(report)
    assert "| correct | plausible | wrong |" in text
    assert "- ut b: f(0): x" in text


def _diff(before: str, after: str) -> str:
    import difflib

    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            "a/candidate.py",
            "b/candidate.py",
        )
    )


def test_rejudge_rescores_a_results_file(tmp_path: Path) -> None:
    dataset = tmp_path / "toy.jsonl"
    record = {
        "id": "toy/double",
        "source": "toy",
        "entry_point": "double",
        "buggy": DOUBLE.buggy,
        "fixed": DOUBLE.fixed,
        "tests": DOUBLE.hidden_tests,
        "visible_tests": DOUBLE.visible_tests,
    }
    dataset.write_text(json.dumps(record) + "\n", encoding="utf-8")
    results = tmp_path / "run"
    results.mkdir()
    candidates = {
        "ut": "def double(x):\n    return x + x\n",
        "none": "def double(x):\n    return 5 if x == 2 else 2 * x\n",
        "print": DOUBLE.buggy,
    }
    lines = []
    for mode, text in candidates.items():
        row = ProblemOutcome(mode=mode, id="toy/double", source="toy", has_candidate=True)
        row.diff = _diff(DOUBLE.buggy, text)
        lines.append(json.dumps(row.to_json()))
    lines.append(json.dumps(ProblemOutcome(mode="probe", id="toy/double", source="toy").to_json()))
    (results / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (results / "config.json").write_text(
        json.dumps({"datasets": [str(dataset)], "max_turns": 1}), encoding="utf-8"
    )

    out = tmp_path / "out"
    report = rejudge(results=results, out=out)
    modes = report["modes"]
    assert (modes["ut"]["correct"], modes["none"]["plausible"], modes["print"]["wrong"]) == (
        1,
        1,
        1,
    )
    assert modes["probe"]["correct"] + modes["probe"]["plausible"] + modes["probe"]["wrong"] == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "- none toy/double: double(2): reference returns 4; candidate returns 5" in text
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert {r["mode"]: r["verdict"] for r in rows}["ut"] == "correct"

    # the command line, resumed: nothing runs again, same report
    completed = subprocess.run(
        [sys.executable, "-m", "selfdebug", "bench", "rejudge", "--results", str(results),
         "--out", str(out), "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["modes"]["ut"]["correct"] == 1


LABEL = problem(
    "class Arg:\n"
    "    def __init__(self, name, deprecated=False):\n"
    "        self.name, self.deprecated = name, deprecated\n"
    "\n"
    "    def label(self):\n"
    "        text = self.name.upper()\n"
    "        if self.deprecated:\n"
    "            text += '!'\n"
    "        return f'[{text}]'\n",
    "def test_label():\n    assert Arg('x').label() == '[X]'\n",
    "Arg.label",
)


def test_a_flag_the_tests_never_set_is_flipped_on_the_recorded_object(tmp_path: Path) -> None:
    head = LABEL.fixed.split("    def label")[0]
    candidate = head + "    def label(self):\n        return f'[{self.name.upper()}]'\n"
    verdict = judge_problem(LABEL, candidate, tmp_path)
    assert verdict.verdict == "plausible", verdict
    expected = (
        "label(Arg(name='x', deprecated=True)): reference returns '[X!]'; candidate returns '[X]'"
    )
    assert verdict.differs_on == expected
