"""Units behind reviewing a fix in the editor: the proposal's evidence and whole-document texts,
the failing test's values in the diagnostic hover, and the progress text naming the mode's step."""

from __future__ import annotations

from pathlib import Path

from selfdebug.server.engine.evidence import FailingTest
from selfdebug.server.engine.types import DebugResult, Progress, TestTally
from selfdebug.server.lsp.edits import fixed_function_text, take_snapshot
from selfdebug.server.lsp.failure_evidence import call_in, evidence_lines
from selfdebug.server.lsp.progress import progress_message
from selfdebug.server.lsp.proposal import fix_evidence, proposed_document
from selfdebug.server.runner.results import Frame, TestResult


def result(chosen: TestTally | None, wider: TestTally | None) -> DebugResult:
    return DebugResult(
        stop_reason="passed",
        turns=1,
        mode="ut",
        original_function="",
        fixed_function="def f():\n    return 1\n",
        fixed_file=None,
        diff="",
        explanation="",
        chosen_before=TestTally(0, 3),
        chosen_after=chosen,
        wider_after=wider,
    )


def test_evidence_names_chosen_and_wider_tests():
    assert fix_evidence(result(TestTally(3, 3), TestTally(7, 7))) == "passes 3/3 chosen, 7/7 wider"
    assert fix_evidence(result(TestTally(2, 2), None)) == "passes 2/2 chosen"
    assert fix_evidence(result(None, None)) == "no candidate"


def test_proposed_document_replaces_only_the_function():
    source = "import os\n\n\ndef f(x):\n    return x + 1\n\n\ndef g():\n    pass\n"
    snapshot = take_snapshot("file:///a.py", Path("/a.py"), 4, source, "f")
    new_text = fixed_function_text(snapshot, None, "def f(x):\n    return x\n")
    proposed = proposed_document(snapshot, new_text)
    assert proposed == source.replace("return x + 1", "return x")


def test_call_in_finds_the_call_with_its_arguments():
    assert call_in("assert mean([2, 4]) == 3", "mean") == "mean([2, 4])"
    assert call_in("assert Stats().spread([1, (4)]) == 3", "spread") == "spread([1, (4)])"
    assert call_in("assert f('a)', g(1)) == 2", "f") == "f('a)', g(1))"
    assert call_in("assert remean([1]) == 1", "mean") is None  # another name that ends alike
    assert call_in("x = mean(", "mean") is None  # not closed on this line


def failing(**fields) -> FailingTest:
    return FailingTest.of(TestResult(nodeid="tests/test_a.py::test_x", outcome="failed", **fields))


def test_evidence_lines_give_the_inputs_and_the_failing_line():
    frame = Frame(
        path="/p/tests/test_a.py", line=5, function="test_x", code="assert mean([2, 4]) == 3"
    )
    test = failing(assert_left="2.0", assert_right="3", assert_op="==", frames=[frame])
    assert evidence_lines(test, "mean", frame) == [
        "inputs: mean([2, 4])",
        "at line 5 of the test: assert mean([2, 4]) == 3",
    ]


def test_evidence_lines_without_assertion_operands_keep_the_exception_detail():
    frame = Frame(path="/p/t.py", line=9, function="test_x", code="check(parse('1,2'))")
    test = failing(
        exc_type="ValueError", message="bad input\nwhile parsing '1,2'\n", frames=[frame]
    )
    lines = evidence_lines(test, "parse", frame)
    assert lines == [
        "inputs: parse('1,2')",
        "at line 9 of the test: check(parse('1,2'))",
        "while parsing '1,2'",
    ]
    assert evidence_lines(failing(), "f", None) == []
    long = Frame(path="/p/t.py", line=1, function="t", code="assert f(" + "1, " * 200 + "1) == 0")
    (inputs, _) = evidence_lines(failing(frames=[long]), "f", long)
    assert len(inputs) <= len("inputs: ") + 200 and inputs.endswith("…")


def test_progress_names_the_turn_the_mode_and_its_step():
    explain = Progress(
        2, 10, "asking the model", 15, message="turn 2/10: asking the model", mode="explain"
    )
    assert progress_message(explain) == (
        "turn 2/10, explain mode: asking the model to explain the code line by line, then fix it"
    )
    probes = Progress(
        1, 4, "inserting probes", 5, message="turn 1/4: inserting probes", mode="probe"
    )
    assert progress_message(probes) == "turn 1/4, probe mode: inserting probes"
    # before the mode is resolved (turn 0), the engine's wording
    assert progress_message(Progress(0, 10, "running 3 tests", 0, message="running 3 tests")) == (
        "running 3 tests"
    )
