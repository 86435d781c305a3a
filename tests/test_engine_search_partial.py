"""A bug at two places (issue 23: click `style` had two copy-pasted lines wrong): the edit search
keeps an edit that fixes some failing tests and breaks none, searches again on it, and when that
finds nothing, the model starts from it. Real pytest runs, a scripted model."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.requests import request_of
from helpers.sumproj import prompt_text

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.runner import ProjectRunner, RunnerSettings

# Two blocks copied from the `bold` one kept its name: each wrong line fails its own test.
CODES = """def codes(bold=None, italic=None, underline=None):
    bits = []
    if bold is not None:
        bits.append(1 if bold else 21)
    if italic is not None:
        bits.append(3 if bold else 23)
    if underline is not None:
        bits.append(4 if bold else 24)
    return bits
"""
FIXED = CODES.replace("3 if bold", "3 if italic").replace("4 if bold", "4 if underline")
TESTS = """from codes import codes


def test_bold():
    assert codes(bold=True) == [1]
    assert codes(bold=False) == [21]


def test_italic():
    assert codes(italic=True) == [3]
    assert codes(italic=False) == [23]


def test_underline():
    assert codes(underline=True) == [4]
    assert codes(underline=False) == [24]


def test_none():
    assert codes() == []
"""
ALL = ["test_codes.py::test_bold", "test_codes.py::test_italic", "test_codes.py::test_underline",
       "test_codes.py::test_none"]  # fmt: skip


def make_project(tmp_path: Path, code: str) -> Path:
    root = tmp_path / "codes"
    root.mkdir()
    (root / "codes.py").write_text(code)
    (root / "test_codes.py").write_text(TESTS)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    return root


def request(root: Path, **changes) -> DebugRequest:
    fields = dict(
        project_root=root, file=root / "codes.py", qualname="codes", tests=ALL, mode="search",
        max_turns=1, transcript_path=root.parent / "t.jsonl",
    )  # fmt: skip
    fields.update(changes)
    return request_of(**fields)


@pytest.fixture
def runner_for():
    runners = []

    def make(root: Path) -> ProjectRunner:
        runners.append(ProjectRunner(root, RunnerSettings(test_timeout_s=10)))
        return runners[-1]

    yield make
    for runner in runners:
        runner.close()


def test_a_bug_at_two_lines_is_fixed_by_a_partial_edit_and_a_second_search(tmp_path, runner_for):
    root = make_project(tmp_path, CODES)
    backend = ScriptedBackend(["never asked"])
    result = run_session(request(root), backend, runner=runner_for(root))
    assert result.success, result.error
    assert backend.requests == []
    assert result.fixed_file == FIXED
    assert "the search's partial edit" in result.found_by
    records = read_transcript(root.parent / "t.jsonl")
    partial = next(r for r in records if r["event"] == "search_partial")
    assert "fixes 1 of 2 failing tests" in partial["edits"][0]
    run = next(r for r in records if r["event"] == "search_partial_run")
    assert run["kept"] and run["passed"] == "3/4"
    assert (root / "codes.py").read_text() == CODES  # the user's file is untouched


def test_the_model_starts_from_the_partial_edit_when_the_rest_is_no_small_edit(
    tmp_path, runner_for
):
    # the underline line needs a name changed and its values swapped: no single edit, no pair
    # of ours (a new number would be refused: the tests expect 4, overfitting.py)
    buggy = CODES.replace("4 if bold else 24", "24 if bold else 4")
    root = make_project(tmp_path, buggy)
    answer = f"Bug: the underline block reads `bold`.\n```python\n{FIXED}```\n"
    backend = ScriptedBackend([answer])
    no_local_edits = request(root, mode="auto", model_edits_s=0)
    result = run_session(no_local_edits, backend, runner=runner_for(root))
    assert len(backend.requests) == 1
    prompt = prompt_text(backend, 0)
    assert "bits.append(3 if italic else 23)" in prompt  # the partial edit is in what it reads
    assert "3/4 pass" in prompt and "FAILED test_codes.py::test_underline" in prompt
    assert "FAILED test_codes.py::test_italic" not in prompt
    assert result.success and result.fixed_file == FIXED and result.found_by == ""


def test_the_models_local_edits_start_from_the_partial_edit(tmp_path, runner_for):
    """The line the search could not mend is a hole in the partially fixed function: the
    model's answer there is judged with the partial edit in place, and the fix holds both."""
    buggy = CODES.replace("4 if bold else 24", "24 if bold else 4")
    root = make_project(tmp_path, buggy)
    backend = ScriptedBackend(["bits.append(4 if underline else 24)"], prompt_form="completion")
    auto = request(root, mode="auto", model_edit_samples=1, generated_inputs=0)
    result = run_session(auto, backend, runner=runner_for(root))
    assert result.success, result.error
    assert result.fixed_file == FIXED
    assert result.found_by.startswith("the model at line 8 (sample 1 of 1)")
    assert "on the search's partial edit" in result.found_by
    prefix, _suffix = backend.requests[0].infill or ["", ""]
    assert "bits.append(3 if italic else 23)" in prefix  # the hole is in the partial fix
    assert all(r.infill is not None for r in backend.requests)  # no whole-function turn
    assert (root / "codes.py").read_text() == buggy


def test_a_partial_edit_must_fix_some_failing_tests_and_break_none():
    from selfdebug.server.engine.judge.partials import rank_partials
    from selfdebug.server.engine.search.edits import generate_edits
    from selfdebug.server.runner.search_runner import Verdict

    edits = generate_edits(CODES, 1, {6: 0, 8: 0}, limit=4)
    failing, passed = ["t::italic", "t::underline"], {"t::bold", "t::none", "t::wider"}
    ok = dict.fromkeys(passed, "passed")
    verdicts = {
        0: Verdict(0, {**ok, "t::italic": "passed", "t::underline": "failed"}),  # partial
        1: Verdict(1, {**ok, "t::italic": "passed", "t::underline": "failed", "t::none": "failed"}),
        2: Verdict(2, {**ok, "t::italic": "failed", "t::underline": "failed"}),  # fixes none
        3: Verdict(3, {"t::italic": "passed", "t::underline": "passed"}, timed_out=True),
    }
    partials = rank_partials(edits, verdicts, failing, passed)
    assert [p.edit for p in partials] == [edits[0]]  # 1 breaks a passing test, 2 fixes nothing
    assert partials[0].fixed == ["t::italic"] and partials[0].failing_total == 2


def test_the_search_process_runs_a_partial_edits_wider_tests_once_each(tmp_path, runner_for):
    """The wider tests named by their file collect the chosen ones a second time (click: a
    test file beside its own tests' ids): each test runs once, and a partial edit's wider tests
    run, so that what it breaks is known."""
    from selfdebug.server.engine.target import locate
    from selfdebug.server.runner.search_runner import CandidateCode, SearchRunner

    root = make_project(tmp_path, CODES)
    searcher = SearchRunner(runner_for(root), root / "codes.py", "codes", CODES)
    first_line = locate(CODES, "codes").start_line + 1
    one_fixed = CODES.replace("3 if bold", "3 if italic")
    judged = searcher.judge(
        [CandidateCode(0, one_fixed, first_line)],
        ALL[:3],
        ["test_codes.py"],
        failing_first=["test_codes.py::test_italic", "test_codes.py::test_underline"],
    )
    assert judged.chosen == ALL[:3] and judged.wider == ["test_codes.py::test_none"]
    assert judged.verdicts[0].outcomes == {
        "test_codes.py::test_italic": "passed",
        "test_codes.py::test_underline": "failed",
        "test_codes.py::test_bold": "passed",
        "test_codes.py::test_none": "passed",
    }


class HoleAnswers(ScriptedBackend):
    """Answers a hole by what follows it: the first entry of `answers` whose key the suffix
    starts with (after indentation); the last answer otherwise."""

    def __init__(self, answers: dict[str, str]) -> None:
        super().__init__(["unused"], prompt_form="completion")
        self.answers = answers

    def complete(self, request, cancel=None, on_text=None, on_progress=None):
        suffix = (request.infill or ["", ""])[1].lstrip()
        reply = next((a for k, a in self.answers.items() if suffix.startswith(k)),
                     list(self.answers.values())[-1])  # fmt: skip
        self._replies = [reply]
        return super().complete(request, cancel, on_text, on_progress)


def test_the_model_votes_among_partial_edits_that_fix_the_same_tests(tmp_path, runner_for):
    """Tests that try `italic=True` only: `bold` -> `italic` and `bold` -> `not bold` each fix
    it; the model's answer at that line chooses the partial edit the rest is built on."""
    buggy = CODES.replace("4 if bold else 24", "24 if bold else 4")
    root = make_project(tmp_path, buggy)
    (root / "test_codes.py").write_text(
        TESTS.replace("    assert codes(italic=False) == [23]\n", "")
    )
    backend = HoleAnswers({
        "if underline is not None": "bits.append(3 if italic else 23)",  # the hole at line 6
        "return bits": "bits.append(4 if underline else 24)",  # the hole at line 8
    })  # fmt: skip
    transcript = root.parent / "t.jsonl"
    auto = request(root, mode="auto", model_edit_samples=1, generated_inputs=0)
    result = run_session(auto, backend, runner=runner_for(root))
    assert result.success, result.error
    assert result.fixed_file == FIXED  # not `3 if not bold else 23`, which passes as well
    records = read_transcript(transcript)
    partial = next(r for r in records if r["event"] == "search_partial")
    assert any("`bold` -> `not bold`" in e for e in partial["edits"])
    (preferred,) = [r for r in records if r["event"] == "search_partial_preferred"]
    assert "`bold` -> `italic`" in preferred["edit"]
    assert "the model writes itself at line 6" in preferred["why"]
