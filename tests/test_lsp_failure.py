"""Self-debug a failing test through a real `selfdebug serve` (issue 35): the code action on a
test function, the ranking shown as diagnostics before any repair, and the fix proposed in the
file of the function at fault (which the editor does not have open)."""

from __future__ import annotations

import asyncio

from test_lsp_e2e import FIX_REPLY, apply_lsp_edits, commands_of, start  # noqa: F401  (the fixture)

from selfdebug.server.lsp.code_actions import is_test_function
from selfdebug.server.lsp.self_debug_failure import pytest_nodeid


def test_test_functions_are_told_apart_as_pytest_collects_them():
    assert is_test_function("file:///p/tests/test_calc.py", "test_mean")
    assert is_test_function("file:///p/calc_test.py", "TestStats.test_spread")
    assert not is_test_function("file:///p/tests/test_calc.py", "helper")
    assert not is_test_function("file:///p/tests/test_calc.py", "Helper.test_x")
    assert not is_test_function("file:///p/calc.py", "test_mean")  # not a test file
    assert not is_test_function("file:///p/tests/conftest.py", "test_fixture")
    assert not is_test_function("file:///p/test_a.py", "test_a.<locals>.test_inner")


def test_a_test_function_s_node_id(tmp_path):
    file = tmp_path / "tests" / "test_calc.py"
    assert pytest_nodeid(tmp_path, file, "TestStats.test_spread") == (
        "tests/test_calc.py::TestStats::test_spread"
    )


async def test_the_failure_of_a_test_is_debugged_in_the_function_at_fault(start):  # noqa: F811
    ws = await start(
        script={"replies": [FIX_REPLY], "prompt_form": "chat"},
        settings={"maxTurns": 2, "mode": "ut"},
    )
    client = ws.client
    test_uri = ws.open("tests/test_calc.py")
    listed = commands_of(await ws.actions(test_uri, 3, 6))  # on test_mean_of_two's def line
    title, command, argument = listed[0]
    assert title == "Self-debug the failure of `test_mean_of_two`"
    assert command == "selfdebug.debugFailure"
    assert argument == {"uri": test_uri, "qualname": "test_mean_of_two", "version": 1}
    assert "Self-debug `test_mean_of_two`" in [t for t, _, _ in listed]  # still offered

    calc = ws.project / "calc.py"
    before = calc.read_text(encoding="utf-8")
    result = await asyncio.wait_for(ws.command("selfdebug.proposeFailureFix", argument), 240)
    # the ranking: `mean` first, as the answer, the progress and a diagnostic on its `def` say
    assert result["suspects"][0]["qualname"] == "mean", result["suspects"]
    assert any(m.startswith("suspects: mean (") for m in client.progress_messages())
    calc_uri = ws.uri("calc.py")
    suspects = [d for d in client.diagnostics[calc_uri] if d.code == "suspect"]
    first = next(d for d in suspects if d.range.start.line == 3)  # `def mean` (0-based)
    assert first.message.startswith("suspect 1 of ") and "test_mean_of_two" in first.message
    # the fix is proposed in calc.py, named and explained, and nothing is written
    proposal = result["proposal"]
    assert proposal["uri"] == calc_uri and proposal["qualname"] == "mean"
    assert proposal["proposed"] == before.replace("(len(values) + 1)", "len(values)")
    assert calc.read_text(encoding="utf-8") == before and client.edits == []
    (report,) = client.reports
    assert report["summary"].startswith("`mean` was suspect 1 of "), report["summary"]


BOUNDS = "def lower_bound(x):\n    return x - 2\n\n\ndef upper_bound(x):\n    return x + 2\n"
BOUNDS_TESTS = """from bounds import lower_bound, upper_bound


def test_bounds():
    assert (lower_bound(5), upper_bound(5)) == (4, 6)


def test_lower():
    assert lower_bound(5) == 4


def test_upper():
    assert upper_bound(5) == 6


def test_ordered():
    assert lower_bound(1) < upper_bound(1)
"""


async def test_a_fix_of_two_functions_of_one_file_is_proposed_as_one_document_edit(start, tmp_path):  # noqa: F811
    """Each bound is off by one and the failing test needs both: the search's partial fix in one
    function, then the other searched beside it; the proposal changes both, in one edit that
    gives exactly the proposed document (as the editors check before applying)."""
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "bounds.py").write_text(BOUNDS, encoding="utf-8")
    (project / "tests" / "test_bounds.py").write_text(BOUNDS_TESTS, encoding="utf-8")
    (project / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    ws = await start(settings={"mode": "search"})
    test_uri = ws.open("tests/test_bounds.py")
    argument = {"uri": test_uri, "qualname": "test_bounds", "version": 1}

    result = await asyncio.wait_for(ws.command("selfdebug.proposeFailureFix", argument), 240)

    proposal = result["proposal"]
    assert proposal is not None, result
    assert proposal["uri"] == ws.uri("bounds.py")
    assert proposal["proposed"] == BOUNDS.replace("x - 2", "x - 1").replace("x + 2", "x + 1")
    (change,) = proposal["edit"]["documentChanges"]
    assert len(change["edits"]) == 2  # one in each function
    assert apply_lsp_edits(proposal["original"], change["edits"]) == proposal["proposed"]
    assert (project / "bounds.py").read_text(encoding="utf-8") == BOUNDS  # nothing written
    (report,) = ws.client.reports
    assert report["summary"].startswith("a fix of two functions, `"), report["summary"]
