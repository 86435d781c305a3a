"""The model's vote among fixes the tests cannot tell apart: the one it writes itself.

When several edits pass every test and behave differently on generated inputs, the search's
rules pick the smallest at one line (or none at several), and the tests cannot say whether that
is the intended one (HumanEvalFix/123: `n*2 + 1` -> `n+2 + 1` and -> `n*3 + 1` both pass the
docstring's examples; the docstring says 3n + 1). The model reads the names, the docstring and
the code around the line: sampled at each line the survivors change, an answer that is exactly
one survivor's program is a vote for it, and an answer that is none of them (its own spelling,
or another fix) votes for the one survivor it behaves like on every generated input, since the
model's answer need not pass the tests to say what the code is meant to do. The naturalness of a
patch to a code model ranks correct patches above merely plausible ones (Xia, Wei & Zhang
ICSE'23; Kolak et al. 2022, "Patch generation with language models: feasibility and
usefulness").

A behaviour is chosen only with more votes than every other. No vote, or a tie: when the
backend can score fills (a local model with FIM tokens), the survivor whose line the model finds
most natural, relative to the line it replaces, is chosen (naturalness.py); else the search's
own rule stays in place. The survivor proposed is the one the model wrote, else the simplest
of the behaviour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from selfdebug.server.backends.base import Backend, BackendCancelled, BackendError, Usage
from selfdebug.server.engine.answers.candidate import program_key
from selfdebug.server.engine.judge.context import BehaviourMatch, Preference, SearchContext
from selfdebug.server.engine.judge.survivors import Survivor
from selfdebug.server.engine.model_edits.fim_prompt import evidence_comments
from selfdebug.server.engine.model_edits.holes import holes_at
from selfdebug.server.engine.model_edits.naturalness import InfillScorer, Scored, most_natural
from selfdebug.server.engine.model_edits.samples import edits_from
from selfdebug.server.engine.search.localize import SuspiciousLine

SAMPLES = 4  # per line: the greedy answer and three sampled
LINES = 3  # lines sampled at most
MATCHED = 12  # distinct answers that are no survivor, run on the generated inputs at most


def model_preference(
    context: SearchContext,
    backend: Backend,
    usage: Usage,
    *,
    sample: Callable[..., list[str]],
    temperature: float = 0.8,
) -> Preference:
    """The vote as the search's `prefer` hook; the model calls are added to `usage`. `sample`:
    model_edits.step.sample_hole (passed in: that module runs the search, this one is run by
    it)."""

    def prefer(
        groups: Sequence[Sequence[Survivor]], match: BehaviourMatch
    ) -> tuple[Survivor, str] | None:
        members = {program_key(s.edit.program): (index, s) for index, group in enumerate(groups)
                   for s in group}  # fmt: skip
        single = {s.edit.line for group in groups for s in group if len(s.edit.lines) == 1}
        lines = sorted(single)[:LINES]
        target = context.target
        original = program_key(target.code)
        evidence = evidence_comments(context.evidence)
        exact: dict[str, int] = {}  # a survivor's program key -> samples that wrote it
        others: list[str] = []  # the other answers' function texts, one per sample
        written: list[str] = []  # what each answer wrote in the hole, for the transcript
        asked = 0
        for line in lines:
            holes = holes_at(target, [SuspiciousLine(line, 1.0, 1, 1, 0, 0)], top=1)
            hole = next((h for h in holes if h.kind == "line"), None)
            if hole is None:
                continue
            texts = sample(context, backend, hole, evidence, SAMPLES, temperature, usage)
            asked += len(texts)
            for text in texts:  # each sample votes, repeats included
                for edit in edits_from(target, hole, [text], {original}):
                    written.append(edit.describe())
                    key = program_key(edit.code)
                    if key in members:
                        exact[key] = exact.get(key, 0) + 1
                    else:
                        others.append(edit.code)
        by_group: dict[int, int] = {}
        for key, count in exact.items():
            by_group[members[key][0]] = by_group.get(members[key][0], 0) + count
        distinct = list(dict.fromkeys(others))[:MATCHED]
        matched = dict(zip(distinct, match(distinct), strict=True)) if distinct else {}
        alike = 0  # answers that are no survivor but behave like one
        for code in others:
            index = matched.get(code)
            if index is not None:
                by_group[index] = by_group.get(index, 0) + 1
                alike += 1
        ranked = sorted(by_group.values(), reverse=True)
        undecided = not ranked or (len(ranked) > 1 and ranked[0] == ranked[1])
        scored: list[Scored] = []
        natural = None
        if undecided and isinstance(backend, InfillScorer):
            scored, natural = _scored(context, backend, groups, evidence)
        context.event(
            "model_preference",
            lines=lines,
            samples=asked,
            votes={members[k][1].edit.describe(): n for k, n in exact.items()},
            alike=alike,
            answers=written,
            natural={s.survivor.edit.describe(): round(s.gain, 3) for s in scored},
        )
        if natural is not None:
            rivals = [s.gain for s in scored if s.group != natural.group]
            runner = f", the next fix's {max(rivals):+.2f}" if rivals else ""
            return natural.survivor, (
                f"of {len(groups)} fixes the tests cannot tell apart, the one the model finds "
                f"most natural at line {natural.survivor.edit.line} (its line "
                f"{natural.gain:+.2f} nats a token against the line it replaces{runner})"
            )
        if undecided:
            return None  # no vote, or a tie: the search's rules decide
        best = max(by_group, key=lambda index: by_group[index])
        own = [k for k in exact if members[k][0] == best]
        chosen = members[max(own, key=lambda k: exact[k])][1] if own else groups[best][0]
        how = "the model writes itself" if own else "that behaves like the model's own answer"
        return chosen, (
            f"of {len(groups)} fixes the tests cannot tell apart, the one {how} at line "
            f"{chosen.edit.line} ({by_group[best]} of {asked} samples)"
        )

    return prefer


def _scored(
    context: SearchContext,
    scorer: InfillScorer,
    groups: Sequence[Sequence[Survivor]],
    evidence: Sequence[str],
) -> tuple[list[Scored], Scored | None]:
    """naturalness.most_natural, or nothing when the backend cannot score this model (no FIM
    tokens) or the call failed: the vote then stays undecided, as before."""
    try:
        return most_natural(context, scorer, groups, evidence)
    except BackendCancelled:
        raise
    except BackendError as error:
        context.event("model_preference_scoring_failed", error=str(error))
        return [], None
