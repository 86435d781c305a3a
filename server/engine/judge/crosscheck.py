"""Versions of the function judged against each other on generated inputs, not only on the tests.

The tests pass for every plausible candidate; whether two of them are one answer, and whether
one breaks what the original did, is measured instead of assumed: the original and the
candidates run on inputs generated from the tests' own calls of the function
(server/runner/_selfdebug_inputs_v1.py, one process, CPU alarms). Two versions agree on an
input when both return equal results (arguments left equal too), or both raise the same
exception with the same message (what a user reads of it: dateutil's `parse` raising
"String does not contain a date" where the inner error's own text was meant is another
answer); a version that did not finish in time agrees with anything (no evidence).

- `behaviour_groups`: candidates that agree on every input are one answer;
- `separating`: the first input on which two groups differ, each one's result, for the user
  and the model;
- `only_repair`: of answers that disagree, the one that leaves every normal result of the
  original alone (a guard that only stops a crash, where another guard also changes a result
  the original returned); of several such, the one that also leaves the original's other
  exceptions alone, changing only the failing tests' error;
- `flaws`: inputs on which a candidate raises where the original returned normally (a fix
  that calls `.items()` on an argument the original also took as a list of pairs): strong
  evidence of an overfit, and a reason to prefer a candidate without it;
- `crashes`: inputs on which a candidate crashes where another candidate returns normally,
  whatever the original did (a bound that still indexes past the end of a short list, where
  another fix answers): a reason to prefer the one that answers;
- `crosscheck_programs`, `on_generated_inputs`: the session's survivors (or any function texts)
  and the original run so, on inputs made from the calls the chosen and wider tests make.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine.judge.context import SearchContext, time_left
from selfdebug.server.engine.judge.survivors import Survivor
from selfdebug.server.engine.search.edit_class import Edit
from selfdebug.server.runner.search_runner import CandidateCode, CrossCheckRun, SearchRunner

ORIGINAL = "original"
SEPARATOR = "\x1f"  # _selfdebug_inputs_v1.SEPARATOR
COUNT = 200  # generated inputs
FLAW_EXCEPTIONS_SKIPPED = ("RecursionError",)  # deeper inputs, not a new fault
MIN_INPUTS = 20  # fewer say little the tests did not; needed to call edits equivalent (a flaw or a
# disagreement needs only the one input that shows it: fix_check.py uses every usable check)


def _agree(a: str, b: str) -> bool:
    if a == "timeout" or b == "timeout":
        return True
    return a == b


def _raised(outcome: str) -> str:
    """The exception type of a `raise:` outcome ("" for any other)."""
    if not outcome.startswith("raise:"):
        return ""
    return outcome[len("raise:") :].partition(SEPARATOR)[0]


@dataclass(frozen=True)
class Separation:
    """An input on which versions differ, and what each did there."""

    call: str  # `f([3, 3, 1])`
    results: dict[str, str]  # version id -> `returns 7` / `raises IndexError`


@dataclass
class CrossCheck:
    """The outcomes of one run (see CrossCheckRun) and the judgements drawn from them."""

    name: str  # the function's name, to write calls
    run: CrossCheckRun

    @property
    def inputs(self) -> int:
        return len(self.run.inputs)

    @property
    def usable(self) -> bool:
        return not self.run.error and bool(self.run.inputs)

    def record_fields(self) -> dict[str, Any]:
        """What the transcript keeps of the run (the search's and the fix check's events)."""
        return {
            "inputs": self.inputs,
            "recorded": self.run.recorded,
            "error": self.run.error,
            "seconds": round(self.run.seconds, 3),
        }

    def outcomes(self, key: str) -> list[str]:
        return self.run.outcomes.get(key, [])

    def agree(self, a: str, b: str) -> bool:
        first, second = self.outcomes(a), self.outcomes(b)
        if not first or not second:
            return True  # no evidence either way (did not compile, or nothing ran)
        return all(_agree(x, y) for x, y in zip(first, second, strict=False))

    def behaviour_groups(self, keys: Sequence[str]) -> list[list[str]]:
        """`keys` grouped by behaviour, in their order (each joins the first group whose first
        member it agrees with everywhere)."""
        groups: list[list[str]] = []
        for key in keys:
            for group in groups:
                if self.agree(group[0], key):
                    group.append(key)
                    break
            else:
                groups.append([key])
        return groups

    def separating(self, keys: Sequence[str]) -> Separation | None:
        """The input that tells most of `keys` apart (the first of those: the recorded calls
        come first, then the simplest changes of them), with each one's result."""
        best, best_count = None, 1
        for index in range(len(self.run.inputs)):
            seen = [self.outcomes(k)[index] for k in keys if index < len(self.outcomes(k))]
            if "timeout" in seen:
                continue
            count = len(set(seen))
            if count > best_count:
                best, best_count = index, count
        if best is None:
            return None
        results = {k: _result(self.outcomes(k)[best]) for k in keys}
        return Separation(f"{self.name}({self.run.inputs[best]})", results)

    def changed(self, key: str, failures: Collection[str] | None = None) -> set[int]:
        """Inputs on which the original returned normally and `key` answers otherwise; with
        `failures` (exception types), also those on which the original raised anything else
        (its own errors, with their messages, are results too)."""
        mine, original = self.outcomes(key), self.outcomes(ORIGINAL)

        def kept(outcome: str) -> bool:
            if outcome.startswith("ok:"):
                return True
            raised = _raised(outcome)
            return failures is not None and bool(raised) and raised not in failures

        return {
            i
            for i, (a, b) in enumerate(zip(mine, original, strict=False))
            if kept(b) and a != "timeout" and a != b
        }

    def only_repair(
        self, keys: Sequence[str], failures: Collection[str] | None = None
    ) -> str | None:
        """The one of `keys` that changes no result the original returned normally (it
        answers only where the original raised or did not finish) when every other one does
        change some; None when there is no such one. When several change none, `failures`
        (what the failing tests ended with) tells them apart: the one that also keeps every
        exception the original raised but those (dateutil `parse`: `str(e.args[0]) + ...`
        keeps each ParserError's message, a constant message or `e.args[0]` alone change
        them), when it is the only one."""
        unchanged = [k for k in keys if not self.changed(k)]
        if len(unchanged) > 1 and failures:
            unchanged = [k for k in unchanged if not self.changed(k, failures)]
        return unchanged[0] if len(unchanged) == 1 and len(keys) > 1 else None

    def flaws(self, key: str) -> list[int]:
        """Inputs on which `key` raises where the original returned normally."""
        found = []
        mine, original = self.outcomes(key), self.outcomes(ORIGINAL)
        for index, (a, b) in enumerate(zip(mine, original, strict=False)):
            raised = _raised(a) not in ("", *FLAW_EXCEPTIONS_SKIPPED)
            if raised and b.startswith("ok:"):
                found.append(index)
        return found

    def crashes(
        self, key: str, others: Sequence[str], on_purpose: Collection[str] = ()
    ) -> list[int]:
        """Inputs on which `key` crashes (raises what its code does not raise on purpose) where
        one of `others` returns normally, whatever the original did there: two fixes that pass
        the same tests, one of which also answers where the other breaks."""
        theirs = [self.outcomes(other) for other in others]
        found = []
        for index, outcome in enumerate(self.outcomes(key)):
            raised = _raised(outcome)
            if not raised or raised in FLAW_EXCEPTIONS_SKIPPED or raised in on_purpose:
                continue
            if any(index < len(o) and o[index].startswith("ok:") for o in theirs):
                found.append(index)
        return found

    def crash_note(self, key: str, found: Sequence[int]) -> str:
        """`raises IndexError on f([1, 2]), where another fix returns`."""
        index = found[0]
        raised = _raised(self.outcomes(key)[index])
        more = f" (and on {len(found) - 1} more generated inputs)" if len(found) > 1 else ""
        call = f"{self.name}({self.run.inputs[index]})"
        return f"raises {raised} on {call}, where another fix returns{more}"

    def flaw_note(self, key: str) -> str:
        """`raises AttributeError on update([('a', 1)]), where the original returned`."""
        found = self.flaws(key)
        if not found:
            return ""
        index = found[0]
        raised = _raised(self.outcomes(key)[index])
        more = f" (and on {len(found) - 1} more generated inputs)" if len(found) > 1 else ""
        call = f"{self.name}({self.run.inputs[index]})"
        return f"raises {raised} on {call}, where the original returned{more}"


def _result(outcome: str) -> str:
    if outcome.startswith("ok:"):
        value = outcome[3:].partition(SEPARATOR)[0]
        return f"returns {_clip(value)}"
    if outcome.startswith("raise:"):
        kind, _, message = outcome[len("raise:") :].partition(SEPARATOR)
        return f"raises {kind}({_clip(repr(message))})" if message else f"raises {kind}"
    return "does not finish in time"


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_separation(separation: Separation, labels: dict[str, str]) -> str:
    """`on f([3, 3, 1]) line 6: ... returns 7; line 7: ... returns 8` (labels: id -> name)."""
    parts = [f"{labels.get(k, k)} {r}" for k, r in separation.results.items() if k in labels]
    shown = [r for k, r in separation.results.items() if k in labels]
    if len(set(shown)) == 1:  # same result, different arguments left behind
        parts = [f"{labels.get(k, k)} leaves different arguments" for k in labels]
    return f"on {separation.call}: " + "; ".join(parts)


@dataclass
class Versions:
    """The versions to run: id -> function text (column 0) whose first line is `first_line`,
    or an edit (search/edit_class.py: its change outside the function runs with it)."""

    codes: dict[str, str | Edit] = field(default_factory=dict)
    first_line: int = 1

    def candidates(self) -> list[CandidateCode]:
        return [
            CandidateCode(int(k), code, self.first_line)
            if isinstance(code, str)
            else code.candidate(int(k), self.first_line)
            for k, code in self.codes.items()
        ]


def run_crosscheck(
    searcher: SearchRunner,
    name: str,
    versions: Versions,
    tests: Sequence[str],
    *,
    count: int = COUNT,
    cancel: CancelToken | None = None,
    timeout_s: float | None = None,
) -> CrossCheck:
    """Every version of `versions` and the original on `count` inputs made from the calls
    `tests` make; ids of `versions` must be ints as text (the plugin's candidate ids).
    `timeout_s`: the session's time left (None: no budget); none left: no run, no evidence."""
    if timeout_s is not None and timeout_s <= 0:
        return CrossCheck(name, CrossCheckRun(error="the time budget was spent"))
    run = searcher.crosscheck(
        versions.candidates(),
        tests,
        count=count,
        cancel=cancel,
        timeout_s=None if timeout_s is None else max(1.0, timeout_s),
    )
    return CrossCheck(name, run)


def crosscheck_programs(
    context: SearchContext, searcher: SearchRunner, programs: Sequence[Survivor]
) -> CrossCheck | None:
    """The programs and the original on generated inputs; None when that gives no evidence
    (no calls recorded, too few inputs, an error): see the transcript's `crosscheck` event."""
    if not context.settings.crosscheck:
        return None
    context.progress(f"running {len(programs)} edits on generated inputs", 0.9)
    check = on_generated_inputs(context, searcher, [s.edit for s in programs])
    context.cancel.raise_if_cancelled()
    context.event(
        "crosscheck",
        versions=len(programs),
        **check.record_fields(),
    )
    return check if gives_evidence(check) else None


def on_generated_inputs(
    context: SearchContext, searcher: SearchRunner, codes: Sequence[str | Edit]
) -> CrossCheck:
    """`codes` (function texts or edits, ids "0", "1", ... in order) and the original run on
    the inputs generated from the calls the chosen and wider tests make."""
    versions = Versions({str(i): code for i, code in enumerate(codes)},
                        context.target.start_line + 1)  # fmt: skip
    tests = list(dict.fromkeys(context.chosen + context.wider))
    return run_crosscheck(
        searcher, context.target.name, versions, tests,
        count=context.settings.generated_inputs, cancel=context.cancel,
        timeout_s=time_left(context.deadline),
    )  # fmt: skip


def gives_evidence(check: CrossCheck) -> bool:
    return check.usable and check.inputs >= MIN_INPUTS
