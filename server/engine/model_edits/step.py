"""The model's local edits as one step of a session: holes at the suspicious lines, samples
for each, judged by the judge every generator's candidates go to, under one time budget.

The model writes the next hole while the tests judge the last one's samples (the judge is
another process): on two cores both keep busy. The step stops at the first hole whose samples
hold a candidate that passes every test it must, at its time budget, or when cancelled; the
candidates then go through the judge's conclusion (engine/judge/judge.py, `conclude`: survivors
ranked, run against each other on generated inputs, the winner verified afresh).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from selfdebug.server.backends.base import (
    Backend,
    BackendCancelled,
    BackendError,
    BackendTimeout,
    CompletionRequest,
    InfillUnsupported,
    Usage,
)
from selfdebug.server.cancel import Cancelled
from selfdebug.server.engine.answers.candidate import program_key
from selfdebug.server.engine.judge.batches import Evaluation
from selfdebug.server.engine.judge.context import SearchContext
from selfdebug.server.engine.judge.judge import Judge, Judgement
from selfdebug.server.engine.model_edits import chat_holes
from selfdebug.server.engine.model_edits.fim_prompt import build_prompt, evidence_comments
from selfdebug.server.engine.model_edits.holes import Hole, holes_at
from selfdebug.server.engine.model_edits.samples import edits_from, max_lines, stop_strings
from selfdebug.server.engine.search import host as search_host
from selfdebug.server.engine.search.edits import Edit
from selfdebug.server.engine.search.host import SearchHost
from selfdebug.server.engine.search.localize import Localization, all_lines

CHAT_TOKENS = 40  # a chat answer's fences and a short word around the code


@dataclass
class ModelEditSettings:
    budget_s: float = 90.0  # the whole step: sampling and judging
    samples: int = 8  # per hole: one greedy, the rest sampled
    top_lines: int = 6  # suspicious lines with holes
    temperature: float = 0.8
    tokens_per_line: int = 40
    hints: bool = True  # the failing test and the original line as comments above the hole


@dataclass
class ModelEditStats:
    """What the step spent and found (the transcript's and the benchmark's numbers)."""

    holes: int = 0
    samples: int = 0
    candidates: int = 0  # distinct programs judged
    refused: int = 0
    usage: Usage = field(default_factory=Usage)  # the model calls
    error: str = ""
    form: str = "infill"  # how the holes were asked for, and why when not with FIM tokens


def model_edit_step(
    context: SearchContext,
    localization: Localization,
    backend: Backend,
    settings: ModelEditSettings,
) -> tuple[Judgement, ModelEditStats]:
    """Holes, samples, judging; `step.fix` is the verified winner when there is one. Raises
    Cancelled when cancelled."""
    started = time.monotonic()
    stats = ModelEditStats()
    step = Judgement()
    budget_end = started + settings.budget_s
    deadline = budget_end if context.deadline is None else min(context.deadline, budget_end)
    target = context.target
    lines = localization.lines or all_lines(target)
    holes = holes_at(target, lines, top=settings.top_lines)
    evidence = evidence_comments(context.evidence) if settings.hints else []
    judge = Judge(context, deadline=deadline)
    edits: list[Edit] = []
    refused: list[str] = []
    judged = Evaluation()
    seen = {program_key(target.code)}
    survivors = 0

    def merge(offset: int, found: Evaluation) -> int:
        judged.extend(found, offset)
        return judge.passing(found, judged.unsteady)

    form = "infill"  # until the backend says it cannot
    pending: tuple[int, Future[Evaluation]] | None = None
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="selfdebug-judge") as pool:
        for number, hole in enumerate(holes, 1):
            if context.cancel.cancelled or time.monotonic() >= deadline or survivors:
                break
            line = target.start_line + hole.first
            context.progress(
                f"model edits: line {line} (hole {number}/{len(holes)}), "
                f"{stats.samples} samples, {len(judged.verdicts)} judged, {survivors} survive",
                min(0.9, (time.monotonic() - started) / settings.budget_s),
            )
            try:
                ask = functools.partial(_sample, context, backend, hole, evidence, settings,
                                        deadline, stats.usage, cold=number == 1)  # fmt: skip
                texts, form, other_form = _sample_in_form(ask, backend.prompt_form, form)
                stats.form = other_form or stats.form
            except BackendCancelled:
                raise Cancelled(context.cancel.reason or "cancelled")
            except BackendError as error:
                stats.error = str(error)
                break
            stats.holes += 1
            stats.samples += len(texts)
            context.event("model_edits_hole", line=line, kind=hole.kind, samples=texts[:16])
            new = edits_from(target, hole, texts, seen, total=len(texts))
            new, why = judge.refuse_overfitting(new)
            refused += why
            if pending is not None:
                survivors += merge(pending[0], pending[1].result())
                pending = None
            if new:
                pending = (len(edits), pool.submit(judge.evaluate, new))
                edits += new
        if pending is not None:
            survivors += merge(pending[0], pending[1].result())
    context.cancel.raise_if_cancelled()
    stats.candidates, stats.refused = len(edits), len(refused)
    context.event("model_edits", holes=stats.holes, samples=stats.samples,
                  candidates=stats.candidates, refused=stats.refused,
                  model_s=round(stats.usage.seconds, 2), error=stats.error,
                  form=stats.form)  # fmt: skip
    if edits:
        judge.conclude(step, edits, judged, started, refused)
    return step, stats


def sample_hole(
    context: SearchContext,
    backend: Backend,
    hole: Hole,
    evidence: Sequence[str],
    samples: int,
    temperature: float,
    usage: Usage,
) -> list[str]:
    """`samples` answers at `hole` (the greedy one first), asked as the step asks (FIM, else
    the backend's other form), within the context's deadline."""
    settings = ModelEditSettings(samples=samples, temperature=temperature)
    deadline = context.deadline or time.monotonic() + settings.budget_s
    ask = functools.partial(
        _sample, context, backend, hole, evidence, settings, deadline, usage, cold=False
    )
    texts, _form, _why = _sample_in_form(ask, backend.prompt_form, "infill")
    return texts


def _sample_in_form(
    ask: Callable[..., list[str]], prompt_form: str, form: str
) -> tuple[list[str], str, str]:
    """(samples, the form that gave them, why not FIM when it changed): `ask(form=...)` once
    more in the backend's other form (`prompt_form`) when it takes no FIM request."""
    try:
        return ask(form=form), form, ""
    except InfillUnsupported as error:
        if form != "infill":
            raise
        other = "chat" if prompt_form == "chat" else "completion"
        return ask(form=other), other, f"{other} ({error})"


def _sample(
    context: SearchContext,
    backend: Backend,
    hole: Hole,
    evidence: Sequence[str],
    settings: ModelEditSettings,
    deadline: float,
    usage: Usage,
    *,
    cold: bool,
    form: str = "infill",
) -> list[str]:
    """The hole's samples, greedy first (the calls added to `usage`), each as a FIM answer.
    `form`: "infill" (the model's FIM tokens), "chat" (chat_holes.py) or "completion" (a base
    model without FIM tokens: the prefix alone, continued left to right)."""
    prompt = build_prompt(context.source, context.target, hole, evidence)
    texts: list[str] = []
    for temperature, n in ((0.0, 1), (settings.temperature, settings.samples - 1)):
        left = deadline - time.monotonic()
        if n <= 0 or left <= 1:
            break
        tokens = settings.tokens_per_line * max_lines(hole)
        chat = chat_holes.messages(context.target, hole, evidence) if form == "chat" else None
        request = CompletionRequest(
            infill=[prompt.prefix, prompt.suffix] if form == "infill" else None,
            prompt=prompt.prefix if form == "completion" else None,
            messages=chat,
            max_tokens=tokens + (CHAT_TOKENS if form == "chat" else 0),
            stop=stop_strings(hole) if form != "chat" else [],
            temperature=temperature,
            n=n,
            seed=1,
            deadline_s=left,
            stall_s=30.0,
            cold=cold and temperature == 0.0,
        )
        try:
            completion = backend.complete(request, cancel=context.cancel)
        except BackendTimeout:
            if not texts:
                raise
            break  # the budget ran out while sampling: the greedy answer is still judged
        if form == "chat":
            indent = context.target.indent
            texts += [chat_holes.as_infill(text, indent, hole) for text in completion.texts]
        else:
            texts += completion.texts
        usage.add(completion)
    return texts


def for_session(
    host: SearchHost,
    backend: Backend,
    localization: Localization,
    usage: Usage,
    passthrough: tuple[type[BaseException], ...],
    version: search_host.Version | None = None,
) -> Judgement | None:
    """The step on the session's function as it is, or on `version` of it (the search's
    partial fix: `localization` is then that version's), its model calls added to `usage`
    (the session's); None when it failed (recorded: the session goes on to the model's other
    steps). `passthrough`: what stops the session."""
    request = host.request
    settings = ModelEditSettings(
        budget_s=request.budget.model_edits_s, samples=request.model.model_edit_samples
    )
    try:
        context = version.context(host) if version is not None else search_host.context_for(host)
        step, stats = model_edit_step(context, localization, backend, settings)
    except passthrough:
        raise
    except Exception as error:
        host.record("model_edits_failed", error=f"{type(error).__name__}: {error}")
        return None
    usage.include(stats.usage)
    return step
