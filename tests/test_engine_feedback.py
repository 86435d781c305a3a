"""What the model is told about failing tests is true: got vs expected by which side of the
assert calls the function, the call's real arguments, the parametrized case, the first failures
in full and the rest counted, and a prompt that fits the model's context. Real pytest runs
through the REAL runner on a small project written here."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.sumproj import prompt_text

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.clipping import clip_middle
from selfdebug.server.engine.evidence import Evidence, FailingTest
from selfdebug.server.engine.feedback import describe_failure, describe_failures
from selfdebug.server.engine.model_calls.context_fit import fit_prompt
from selfdebug.server.engine.model_calls.prompting import PromptLibrary, PromptVars
from selfdebug.server.engine.target import locate
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.engine.types import Budget, Reporting, TargetSpec
from selfdebug.server.runner import ProjectRunner, RunnerSettings

STATS = '''"""Statistics with a bug: the median of an even count is one middle value."""


def median(xs):
    ordered = sorted(xs)
    return ordered[len(ordered) // 2]
'''

TESTS = """import pytest

from stats import median


def test_expected_first():
    xs = [1, 2, 3, 4]
    assert 2.5 == median(xs)


def test_result_variable():
    result = median([10, 20])
    assert result == 15


def test_empty():
    assert median([]) is None


@pytest.mark.parametrize("xs, expected", [([5, 1], 3), ([1, 2, 3, 4], 2.5), ([7], 7)])
def test_cases(xs, expected):
    assert median(xs) == expected


@pytest.mark.parametrize("size", [2, 4, 6])
def test_even_sizes(size):
    assert median(list(range(size))) == (size - 1) / 2
"""
GOOD = (
    "def median(xs):\n    ordered = sorted(xs)\n    middle = len(ordered) // 2\n"
    "    if len(ordered) % 2:\n        return ordered[middle]\n"
    "    return (ordered[middle - 1] + ordered[middle]) / 2\n"
)


DEEP = "def depth(n):\n    return 0 if n == 0 else 2 + depth(n - 1)\n"  # 2: the bug
DEEP_TEST = "from deep import depth\n\n\ndef test_depth():\n    assert depth(700) == 700\n"
UNIT_TESTS = """import unittest

from stats import median


class MedianTest(unittest.TestCase):
    def test_even(self):
        self.assertEqual(2.5, median([1, 2, 3, 4]))
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("feedback") / "stats"
    root.mkdir()
    (root / "stats.py").write_text(STATS)
    (root / "test_stats.py").write_text(TESTS)
    (root / "deep.py").write_text(DEEP)
    (root / "test_deep.py").write_text(DEEP_TEST)
    (root / "test_unit_stats.py").write_text(UNIT_TESTS)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    return root


@pytest.fixture(scope="module")
def runner(project):
    with ProjectRunner(project, RunnerSettings(test_timeout_s=10)) as shared:
        yield shared


def failures_for(project: Path, runner: ProjectRunner, nodeids: list[str], **options) -> str:
    run = runner.run(nodeids)
    target = locate(STATS, "median")
    return describe_failures(Evidence.of(run), target, project / "stats.py", **options)


def test_got_is_what_the_function_returned_whichever_side_calls_it(project, runner):
    text = failures_for(
        project,
        runner,
        ["test_stats.py::test_expected_first", "test_stats.py::test_result_variable"],
    )
    assert "`assert 2.5 == median(xs)` got 3, expected 2.5" in text  # not "got 2.5"
    assert "call: median([1, 2, 3, 4]) returned 3" in text  # the inputs, as values
    assert "`assert result == 15` got 20, expected 15" in text  # result = median(...)


def test_an_exception_shows_the_call_as_the_test_wrote_it(project, runner):
    text = failures_for(project, runner, ["test_stats.py::test_empty"])
    assert "FAILED test_stats.py::test_empty: IndexError: list index out of range" in text
    assert "at `assert median([]) is None`" in text
    assert "raised at line 3 of `median`: `return ordered[len(ordered) // 2]`" in text
    assert "call: median([])" in text  # pytest wrote no `where` line: the test's own text


def test_a_unittest_failure_is_shown_at_the_tests_line_not_in_unittest(project, runner):
    text = failures_for(project, runner, ["test_unit_stats.py::MedianTest::test_even"])
    assert "AssertionError: 2.5 != 3" in text
    assert "at `self.assertEqual(2.5, median([1, 2, 3, 4]))`" in text
    assert "assertion_func" not in text  # unittest's own frame (case.py) says nothing


def test_parametrized_cases_show_their_values(project, runner):
    text = failures_for(project, runner, ["test_stats.py::test_cases"])
    assert "test_cases[xs1-2.5]: `assert median(xs) == expected` got 3, expected 2.5" in text
    assert "parameters: xs=[1, 2, 3, 4], expected=2.5" in text
    assert "parameters: xs=[5, 1], expected=3" in text
    assert "[xs2-7]" not in text  # it passes


def test_first_three_failures_in_full_the_rest_counted(project, runner):
    text = failures_for(project, runner, ["test_stats.py"])
    entries = [line for line in text.splitlines() if line.startswith("FAILED")]
    assert len(entries) == 3
    # 8 fail in all: expected_first, result_variable, empty, cases x2, even_sizes x3
    assert text.splitlines()[-1].startswith("... and 5 more failing tests: test_cases[xs0-3]")
    assert "test_even_sizes[6]" in text.splitlines()[-1]


def test_even_size_parameter_comes_from_the_id(project, runner):
    text = failures_for(project, runner, ["test_stats.py::test_even_sizes[4]"])
    assert "parameters: size=4" in text
    assert "call: median([0, 1, 2, 3]) returned 2" in text


def test_session_prompt_carries_the_true_values(project, runner):
    backend = ScriptedBackend([f"Bug: one middle value.\n```python\n{GOOD}```\n"])
    request = DebugRequest(
        TargetSpec(
            file=project / "stats.py",
            qualname="median",
            project_root=project,
            tests=["test_stats.py::test_expected_first"],
        ),
        mode="ut",
    )
    result = run_session(request, backend, runner=runner)
    assert result.stop_reason == "passed"
    prompt = prompt_text(backend, 0)
    assert "got 3, expected 2.5" in prompt and "median([1, 2, 3, 4]) returned 3" in prompt


# -- the prompt fits the model's context ---------------------------------------------------------


def test_fit_prompt_trims_the_log_middle_before_anything_else():
    log = "\n".join(f"line 4: i={i}" for i in range(2000))
    variables = PromptVars(
        name="f", qualname="f", file="m.py", code="def f(n):\n    return n", log=log,
        log_kind="probes", failures="FAILED t::a: got 1, expected 2", tally="0/1",
    )  # fmt: skip
    library = PromptLibrary()
    rendered, trimmed, tokens = fit_prompt(
        lambda v: library.render("fix_log", "chat", v),
        variables,
        window=2048,
        answer_tokens=768,
        count=lambda text: len(text) // 4,
    )
    user = rendered.messages[-1]["content"]
    assert tokens + 768 <= 2048 and trimmed and trimmed[0].startswith("log cut")
    assert "line 4: i=0" in user and "line 4: i=1999" in user  # head and tail kept
    assert "lines left out]" in user and "def f(n):" in user
    assert "got 1, expected 2" in user  # the failure survives the log trim


def test_clip_middle_keeps_head_and_tail():
    text = "\n".join(str(i) for i in range(100))
    clipped = clip_middle(text, 60)
    assert clipped.startswith("0\n1\n") and clipped.endswith("98\n99")
    assert "lines left out" in clipped and len(clipped) <= 60


def test_session_prompt_is_trimmed_to_the_backends_context(project, runner, tmp_path):
    def request(transcript: Path) -> DebugRequest:
        return DebugRequest(
            TargetSpec(
                file=project / "stats.py",
                qualname="median",
                project_root=project,
                tests=["test_stats.py::test_cases", "test_stats.py::test_even_sizes"],
            ),
            mode="ut",
            reporting=Reporting(transcript_path=transcript),
        )

    def sent(backend: ScriptedBackend) -> str:
        return prompt_text(backend, 0)

    wide = ScriptedBackend([f"```python\n{GOOD}```\n"])
    run_session(request(tmp_path / "wide.jsonl"), wide, runner=runner)
    full = sent(wide)
    answer = wide.requests[0].max_tokens
    window = len(full) // 4 + answer + 64 - 3  # a few tokens short of the whole prompt
    narrow = ScriptedBackend([f"```python\n{GOOD}```\n"], context_tokens=window)
    result = run_session(request(tmp_path / "narrow.jsonl"), narrow, runner=runner)
    assert result.stop_reason == "passed"
    trimmed = sent(narrow)
    assert len(trimmed) // 4 + 1 + answer + 64 <= window < len(full) // 4 + answer + 64
    events = read_transcript(tmp_path / "narrow.jsonl")
    assert [e["trimmed"] for e in events if e["event"] == "prompt_trimmed"] == [
        ["failures after the first 3"]
    ]
    assert "def median(xs):" in trimmed and "more failure entries left out to fit" in trimmed


# -- probe logs ---------------------------------------------------------------------------------


def test_deep_recursion_fails_the_same_way_under_probes(project, runner, tmp_path):
    """700 levels work unprobed; the probe wrapper doubles the frames, so without a raised
    recursion limit the log run would end in RecursionError, a failure the code does not have."""
    transcript = tmp_path / "deep.jsonl"
    fixed = "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\n"
    backend = ScriptedBackend([f"```python\n{fixed}```\n"])
    request = DebugRequest(
        TargetSpec(
            file=project / "deep.py",
            qualname="depth",
            project_root=project,
            tests=["test_deep.py::test_depth"],
        ),
        mode="probe",
        reporting=Reporting(transcript_path=transcript),
    )
    result = run_session(request, backend, runner=runner)
    assert result.stop_reason == "passed"
    runs = {e["label"]: e["result"] for e in read_transcript(transcript) if e["event"] == "tests"}
    assert runs["baseline"]["tests"][0]["exc_type"] == "AssertionError"
    assert runs["log"]["tests"][0]["exc_type"] == "AssertionError"  # not RecursionError


def test_one_lookup_finds_tests_and_targets_inside_blocks(tmp_path):
    """The engine, the instrumenter and discovery share one definition lookup: a test or method
    defined under `if`/`try` (as pytest collects it) is found by all of them."""
    from selfdebug.instrument import locate_function
    from selfdebug.server.engine.feedback import source_of_test
    from selfdebug.server.engine.parametrized_case import parameters_of

    source = (
        "import sys\n"
        "if sys.version_info >= (3,):\n"
        "    class TestShop:\n"
        "        @staticmethod\n"
        "        def helper():\n"
        "            return 1\n"
        "\n"
        "        @pytest.mark.parametrize('n', [2])\n"
        "        def test_price(self, n):\n"
        "            assert n == 3\n"
        "try:\n"
        "    def test_plain():\n"
        "        assert False\n"
        "except ImportError:\n"
        "    pass\n"
    )
    (tmp_path / "test_shop.py").write_text(source)
    assert source_of_test(tmp_path, "test_shop.py::test_plain") == (
        "def test_plain():\n    assert False"
    )
    method = source_of_test(tmp_path, "test_shop.py::TestShop::test_price[2]")
    assert method.startswith("@pytest.mark.parametrize('n', [2])\ndef test_price(self, n):")
    assert parameters_of("test_shop.py::TestShop::test_price[2]", tmp_path / "test_shop.py") == (
        "n=2"
    )
    engine = locate(source, "TestShop.helper")
    instrumenter = locate_function(source.encode(), "TestShop.helper")
    assert (engine.start_line, engine.def_line, engine.class_name) == (3, 4, "TestShop")
    assert (instrumenter.start_line, instrumenter.def_line) == (3, 4)


@pytest.mark.parametrize(
    ("fields", "detail"),
    [
        ({"assert_left": "3", "assert_right": "2", "assert_op": "<"}, "assert 3 < 2 is false"),
        ({"exc_type": "ValueError", "message": "bad input"}, "ValueError: bad input"),
        ({"outcome": "timeout"}, "timed out"),
    ],
)
def test_the_model_and_the_editor_read_the_same_failure_words(fields, detail):
    """One wording (runner/results.failure_detail) for the prompt and the diagnostics."""
    from selfdebug.server.lsp.diagnostics import failure_message
    from selfdebug.server.runner.results import TestResult

    test = TestResult(**{"nodeid": "t.py::test_f", "outcome": "failed", **fields})
    target = locate("def f():\n    return 3\n", "f")
    failing = FailingTest.of(test)
    for_model = describe_failure(failing, target, Path("/nowhere/f.py")).splitlines()[0]
    for_editor = failure_message(test)
    assert for_model.startswith(f"{test.outcome.upper()} t.py::test_f: {detail}")
    assert for_editor.startswith("t.py::test_f") and for_editor.endswith(detail)


def test_a_prompt_shows_the_sources_of_a_few_tests_in_order_and_none_empty(tmp_path):
    """Forty chosen tests would cost a small model thousands of prompt tokens: the prompt shows
    the first six whose source is found, in the session's order (failing first), and skips a
    test inherited from a mixin class (it has no source of its own in its class)."""
    from selfdebug.server.engine.feedback import sources_to_show

    body = "".join(f"    def test_{i}(self):\n        assert {i}\n" for i in range(8))
    (tmp_path / "test_m.py").write_text(
        f"class Mixin:\n{body}\n\nclass TestReal(Mixin):\n    pass\n\n"
        "def test_fails():\n    assert False\n"
    )
    nodeids = [
        "test_m.py::test_fails",
        "test_m.py::TestReal::test_0",  # inherited: collected under TestReal, defined in Mixin
        *(f"test_m.py::Mixin::test_{i}" for i in range(8)),
    ]
    shown = sources_to_show(tmp_path, nodeids)
    assert [nodeid for nodeid, _ in shown] == [
        "test_m.py::test_fails",
        *(f"test_m.py::Mixin::test_{i}" for i in range(5)),
    ]
    assert all(source.strip() for _, source in shown)


def test_once_a_run_tells_the_failing_tests_they_come_first_with_few_passing_ones(tmp_path):
    """After the baseline run the prompt shows every failing test's source (up to six) and at
    most two passing ones: long passing tests filled half of a click prompt and said nothing."""
    from selfdebug.server.engine.feedback import sources_to_show

    body = "".join(f"def test_{i}():\n    assert {i}\n\n\n" for i in range(8))
    (tmp_path / "test_m.py").write_text(body)
    nodeids = [f"test_m.py::test_{i}" for i in range(8)]
    shown = sources_to_show(tmp_path, nodeids, failing={"test_m.py::test_5", "test_m.py::test_7"})
    assert [nodeid for nodeid, _ in shown] == [
        "test_m.py::test_5",
        "test_m.py::test_7",
        "test_m.py::test_0",
        "test_m.py::test_1",
    ]


def test_a_session_prompt_shows_the_failing_test_before_passing_ones(tmp_path):
    """The session's own prompt, from a real baseline run: the failing test is first although
    the request named it last, and only two of the four passing tests are shown."""
    root = tmp_path / "p"
    root.mkdir()
    (root / "stats.py").write_text(STATS)
    passing = "".join(
        f"def test_ok_{i}():\n    assert median([{i}]) == {i}\n\n\n" for i in range(4)
    )
    (root / "test_s.py").write_text(
        f"from stats import median\n\n\n{passing}def test_even():\n"
        "    assert median([1, 2, 3, 4]) == 2.5\n"
    )
    tests = [*(f"test_s.py::test_ok_{i}" for i in range(4)), "test_s.py::test_even"]
    backend = ScriptedBackend([f"```python\n{GOOD}```"])
    request = DebugRequest(
        TargetSpec(
            project_root=str(root), file=str(root / "stats.py"), qualname="median", tests=tests
        ),
        mode="ut",
        budget=Budget(max_turns=1),
        auto_search=False,
    )
    with ProjectRunner(root, RunnerSettings(test_timeout_s=10)) as runner:
        result = run_session(request, backend, runner=runner)
    assert result.stop_reason == "passed"
    prompt = prompt_text(backend, 0)
    assert prompt.index("# test_s.py::test_even") < prompt.index("# test_s.py::test_ok_0")
    assert "# test_s.py::test_ok_1" in prompt
    assert "# test_s.py::test_ok_2" not in prompt


def test_the_cases_of_a_parametrized_test_share_one_source_block(tmp_path):
    from selfdebug.server.engine.feedback import sources_to_show

    (tmp_path / "test_p.py").write_text(
        "import pytest\n\n\n@pytest.mark.parametrize('x', [1, 2, 3])\n"
        "def test_p(x):\n    assert x\n\n\ndef test_other():\n    assert True\n"
    )
    nodeids = ["test_p.py::test_p[2]", "test_p.py::test_other", "test_p.py::test_p[1]",
               "test_p.py::test_p[3]"]  # fmt: skip
    shown = sources_to_show(tmp_path, nodeids, limit=2)
    assert [label for label, _ in shown] == [
        "test_p.py::test_p[2] (and 2 more cases)",
        "test_p.py::test_other",
    ]
    assert shown[0][1].startswith("@pytest.mark.parametrize") and len(shown) == 2
