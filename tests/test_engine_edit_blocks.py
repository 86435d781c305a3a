"""Answers that edit the function (SEARCH/REPLACE blocks, diff hunks) instead of repeating it
(engine/answers/edit_blocks.py, issue 36 item 5): applied to the function, and taken by the
candidate check like a whole-function answer."""

from __future__ import annotations

from selfdebug.server.engine.answers.candidate import check_candidate
from selfdebug.server.engine.answers.edit_blocks import apply_edit_answer
from selfdebug.server.engine.target import locate

SOURCE = '''class Range:
    def clamp(self, x, low, high):
        """Clamp `x` into [low, high].

        A long docstring the model need not repeat.
        """
        if x > high:
            return high
        if x < low:
            return high
        return x
'''


def _code() -> str:
    return locate(SOURCE, "Range.clamp").code


def test_search_replace_blocks_apply_with_the_functions_indentation():
    reply = (
        "The second branch returns the wrong bound.\n```\n<<<<<<< SEARCH\n"
        "        if x < low:\n            return high\n=======\n"
        "        if x < low:\n            return low\n>>>>>>> REPLACE\n```\n"
    )
    edited = apply_edit_answer(reply, _code())
    assert edited.blocks == 1 and edited.problem == ""
    assert edited.code == _code().replace("return high\n    return x", "return low\n    return x")
    # the same lines at another indentation are found line by line
    flat = reply.replace("        if", "if").replace("            return", "    return")
    assert apply_edit_answer(flat, _code()).code == edited.code


def test_a_diff_hunk_applies_and_a_block_that_is_not_there_is_a_problem():
    hunk = (
        "```diff\n@@ -5,2 +5,2 @@\n     if x < low:\n-        return high\n+        return low\n```"
    )
    assert "return low\n    return x" in (apply_edit_answer(hunk, _code()).code or "")
    missing = apply_edit_answer("<<<<<<< SEARCH\nif y:\n=======\nif z:\n>>>>>>> REPLACE", _code())
    assert missing.code is None and missing.problem.startswith("SEARCH/REPLACE block 1's lines")
    assert apply_edit_answer("no edit here\n```python\ndef f(): pass\n```", _code()).blocks == 0


def test_the_candidate_check_takes_an_edit_answer_like_a_whole_function():
    target = locate(SOURCE, "Range.clamp")
    reply = (
        "Bug: the low branch returns high.\n<<<<<<< SEARCH\n        if x < low:\n"
        "            return high\n=======\n        if x < low:\n            return low\n"
        ">>>>>>> REPLACE\n"
    )
    candidate = check_candidate(reply, target, SOURCE)
    assert candidate.ok, candidate.problem
    assert candidate.new_source == SOURCE.replace(
        "x < low:\n            return high", "x < low:\n            return low"
    )
    assert candidate.explanation.startswith("the low branch returns high")
    wrong = check_candidate(reply.replace("x < low", "x <= low", 1), target, SOURCE)
    assert not wrong.ok and "not in the function" in wrong.problem


def test_a_block_quoting_a_line_without_its_indentation_keeps_the_replacements_structure():
    """Seen with Qwen2.5-Coder-1.5B on click: the SEARCH line at column 0 is the tail of an
    indented line; the REPLACE lines (an if/else) take that line's indentation, each level kept."""
    reply = (
        "<<<<<<< SEARCH\nreturn high\n=======\nif high is None:\n    return x\n"
        "return high\n>>>>>>> REPLACE\n"
    )
    edited = apply_edit_answer(reply, _code())
    assert edited.code is not None and edited.problem == ""
    assert "        if high is None:\n            return x\n        return high\n" in edited.code
    compile(edited.code, "clamp", "exec")
