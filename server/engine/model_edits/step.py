"""The model's local edits as one step of a session: holes at the suspicious lines, samples
for each, judged by the judge every generator's candidates go to.

The model writes the next hole while the tests judge the last one's samples (the judge is
another process): on two cores both keep busy. The samples spread over the places first
(`plan_asks`): the greedy answer at each of the SPREAD best places' own lines before any
sampled answer, then each hole's samples, fewer at a less suspicious line. The step stops at
the first call whose samples hold a candidate that passes every test it must, when every hole
has its samples, at its time cap or the session's budget, or when cancelled; the candidates
then go through the judge's conclusion (engine/judge/judge.py, `conclude`: survivors ranked,
run against each other on generated inputs, the winner verified afresh).

Its bound is its samples (`samples` per hole); its seconds (`budget_s`) are a cap set on the
reference machine and scaled to the model's measured speed (`step_cap_s`), so a busy machine
reaches the same samples later instead of fewer. A hole whose first samples give nothing new
is left early (`PROBE_SAMPLES`).
"""

from __future__ import annotations

import functools
import math
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
from selfdebug.server.engine.model_calls.call_deadline import SpeedMeter
from selfdebug.server.engine.model_edits import chat_holes
from selfdebug.server.engine.model_edits.fim_prompt import build_prompt, evidence_comments
from selfdebug.server.engine.model_edits.holes import Hole, holes_at
from selfdebug.server.engine.model_edits.samples import edits_from, max_lines, stop_strings
from selfdebug.server.engine.search import host as search_host
from selfdebug.server.engine.search.edits import Edit
from selfdebug.server.engine.search.host import SearchHost
from selfdebug.server.engine.search.localize import Localization, SuspiciousLine, all_lines

CHAT_TOKENS = 40  # a chat answer's fences and a short word around the code
SPREAD = 3  # places whose line's greedy answer comes before any sampled answer
# A hole whose first PROBE_SAMPLES answers (the greedy one and three sampled) make no new program
# (none parses, none changes the hole's code, each repeats one already judged) gets no more:
# the model's answers at that place are spent, and the next hole is a new place.
PROBE_SAMPLES = 4
# The cap (`budget_s`) is set on the reference machine: 2 cores, where the 1.5B model writes
# ~16 tokens/s alone (docs/bench/backend-1.5b.json: 16.5) and about half that while the
# judge's test runs share the cores. A model that writes slower than SLOW_TOK_S (a busy
# machine, a bigger model) gets the cap scaled by how much slower, up to MAX_SCALE times.
SLOW_TOK_S = 8.0
MAX_SCALE = 4.0


def step_cap_s(budget_s: float, generation_tok_s: float | None) -> float:
    """The step's wall-clock cap: `budget_s` on the reference machine, or on any machine where
    the model writes at least SLOW_TOK_S (nothing changes on an idle one); longer where it is
    slower (measured on the step's own calls), so the same samples are reached later."""
    if not generation_tok_s or generation_tok_s >= SLOW_TOK_S:
        return budget_s
    return budget_s * min(MAX_SCALE, SLOW_TOK_S / generation_tok_s)


@dataclass
class ModelEditSettings:
    # the step's wall-clock cap (sampling and judging) on the reference machine (`step_cap_s`)
    budget_s: float = 90.0
    samples: int = 8  # per hole at the best line (the step's real bound): hole_samples
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
    meter = SpeedMeter()

    def cap() -> float:
        return step_cap_s(settings.budget_s, meter.generation_tok_s)

    def deadline_now() -> float:
        end = started + cap()
        return end if context.deadline is None else min(context.deadline, end)

    target = context.target
    lines = localization.lines or all_lines(target)
    holes = holes_at(target, lines, top=settings.top_lines)
    evidence = evidence_comments(context.evidence) if settings.hints else []
    judge = Judge(context, deadline=deadline_now())
    edits: list[Edit] = []
    refused: list[str] = []
    judged = Evaluation()
    seen = {program_key(target.code)}
    fresh: set[Hole] = set()  # holes whose greedy answer, asked first on its own, was new
    survivors = 0

    def merge(offset: int, found: Evaluation) -> int:
        judged.extend(found, offset)
        return judge.passing(found, judged.unsteady, edits, offset)

    form = "infill"  # until the backend says it cannot
    pending: tuple[int, Future[Evaluation]] | None = None
    asks = plan_asks(holes, lines, settings.samples)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="selfdebug-judge") as pool:
        for number, ask in enumerate(asks, 1):
            if context.cancel.cancelled or time.monotonic() >= deadline_now() or survivors:
                break
            hole = ask.hole
            line = target.start_line + hole.first

            def spent(texts: list[str], line: int = line, hole: Hole = hole) -> bool:
                """The hole's first answers made no new program: no more are asked for."""
                if hole in fresh or edits_from(target, hole, texts, set(seen)):
                    return False
                context.event("early_stop", step="model local edits", line=line,
                              samples=len(texts), reason=f"the first {len(texts)} samples at "
                              f"line {line} make no new program (none parses, changes the "
                              "code there, or differs from those judged already); the "
                              "hole's other samples are not asked for")  # fmt: skip
                return True

            context.progress(
                f"model edits: line {line} (hole {holes.index(hole) + 1}/{len(holes)}), "
                f"{stats.samples} samples, {len(judged.verdicts)} judged, {survivors} survive",
                min(0.9, (time.monotonic() - started) / cap()),
            )
            try:
                ask_in = functools.partial(_sample, context, backend, hole, evidence, settings,
                                           deadline_now, stats.usage, cold=number == 1,
                                           draws=ask.draws(settings.temperature),
                                           meter=meter, spent=spent)  # fmt: skip
                texts, form, other_form = _sample_in_form(ask_in, backend.prompt_form, form)
                stats.form = other_form or stats.form
            except BackendCancelled:
                raise Cancelled(context.cancel.reason or "cancelled")
            except BackendTimeout as error:
                if stats.samples and time.monotonic() >= deadline_now() - 1.5:
                    # answers are in and the step's own cap ran out during a later ask: the
                    # step ends there as it would at the cap, not with an error
                    context.event("early_stop", step="model local edits", line=line,
                                  samples=stats.samples, reason="the step's time cap ran out "
                                  f"while the model answered at line {line}")  # fmt: skip
                else:
                    stats.error = str(error)
                break
            except BackendError as error:
                stats.error = str(error)
                break
            stats.holes += ask.greedy
            stats.samples += len(texts)
            context.event("model_edits_hole", line=line, kind=hole.kind, samples=texts[:16])
            numbers = range(ask.first, ask.first + len(texts))
            new = edits_from(target, hole, texts, seen, numbers=numbers, total=ask.total)
            if new and ask.greedy:
                fresh.add(hole)
            new, why = judge.refuse_overfitting(new)
            refused += why
            if pending is not None:
                survivors += merge(pending[0], pending[1].result())
                pending = None
            if new:
                judge.deadline = deadline_now()  # the cap as the speed measured now says
                pending = (len(edits), pool.submit(judge.evaluate, new))
                edits += new
        if pending is not None:
            survivors += merge(pending[0], pending[1].result())
    context.cancel.raise_if_cancelled()
    stats.candidates, stats.refused = len(edits), len(refused)
    context.event("model_edits", holes=stats.holes, samples=stats.samples,
                  candidates=stats.candidates, refused=stats.refused,
                  model_s=round(stats.usage.seconds, 2), error=stats.error,
                  form=stats.form, cap_s=round(cap(), 1),
                  tok_s=round(meter.generation_tok_s or 0.0, 1))  # fmt: skip
    if edits:
        judge.deadline = deadline_now()
        judge.conclude(step, edits, judged, started, refused)
    return step, stats


@dataclass(frozen=True)
class Ask:
    """The model's calls at one hole in one go: its greedy answer, its sampled ones, or both;
    the answers are numbered of `total`, the hole's samples in all."""

    hole: Hole
    greedy: bool
    sampled: int
    total: int

    @property
    def first(self) -> int:
        """The number of the ask's first answer (the greedy one is 1)."""
        return 1 if self.greedy else 2

    def draws(self, temperature: float) -> list[tuple[float, int]]:
        return [(0.0, 1)] * self.greedy + [(temperature, self.sampled)] * (self.sampled > 0)


def plan_asks(holes: Sequence[Hole], lines: Sequence[SuspiciousLine], samples: int) -> list[Ask]:
    """The holes' calls in order: the greedy answer at the line holes of the SPREAD best
    places first (the evidence ranks places roughly: a fix at the second place no longer
    waits for every sample at the first), then the holes in their order (holes.py) with the
    rest of their samples."""
    firsts = [hole for hole in holes if hole.kind == "line"][:SPREAD]
    counts = {hole: hole_samples(hole, lines, samples) for hole in holes}
    asks = [Ask(hole, True, 0, counts[hole]) for hole in firsts]
    for hole in holes:
        greedy = hole not in firsts
        sampled = counts[hole] - 1
        if greedy or sampled > 0:
            asks.append(Ask(hole, greedy, sampled, counts[hole]))
    return asks


def hole_samples(hole: Hole, lines: Sequence[SuspiciousLine], samples: int) -> int:
    """A hole's samples by its line's score against the best one's (a line half as suspicious
    gets half as many, two at least): the budget goes where the evidence points. Unscored
    lines (no evidence) all get `samples`."""
    best = max((line.score for line in lines), default=0.0)
    if best <= 0 or samples <= 2 or hole.rank >= len(lines):
        return samples
    return max(2, min(samples, math.ceil(samples * lines[hole.rank].score / best)))


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
        _sample, context, backend, hole, evidence, settings, lambda: deadline, usage, cold=False
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
    deadline: Callable[[], float],
    usage: Usage,
    *,
    cold: bool,
    form: str = "infill",
    draws: Sequence[tuple[float, int]] = (),
    meter: SpeedMeter | None = None,
    spent: Callable[[list[str]], bool] | None = None,
) -> list[str]:
    """The hole's samples, greedy first (the calls added to `usage`, timed by `meter`), each as
    a FIM answer, while `deadline()` allows (read before each call: the cap follows the speed).
    `form`: "infill" (the model's FIM tokens), "chat" (chat_holes.py) or "completion" (a base
    model without FIM tokens: the prefix alone, continued left to right). `draws`: (temperature,
    answers) per call; by default the greedy one and the settings' other samples.
    `spent(texts)`, asked once PROBE_SAMPLES answers are in: True leaves the hole there. The
    sampled answers come in two calls then, seeds following on (the backends sample answer i
    with seed + i): the same answers as one call would give."""
    prompt = build_prompt(context.source, context.target, hole, evidence)
    texts: list[str] = []
    draws = draws or ((0.0, 1), (settings.temperature, settings.samples - 1))
    greedy = draws[0][0] == 0.0  # this call asks the hole's first answer
    for temperature, n, offset in _calls(draws, probe=spent is not None):
        if offset and spent is not None and spent(texts):
            break
        left = deadline() - time.monotonic()
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
            seed=1 + offset,
            deadline_s=left,
            stall_s=30.0,
            cold=cold and temperature == 0.0,
        )
        try:
            completion = backend.complete(request, cancel=context.cancel)
        except BackendTimeout:
            if not texts and greedy:
                raise
            # the time ran out while sampling: the greedy answer (asked with these, or before
            # on its own: plan_asks) is still judged, and the step ends at its cap
            break
        if form == "chat":
            indent = context.target.indent
            texts += [chat_holes.as_infill(text, indent, hole) for text in completion.texts]
        else:
            texts += completion.texts
        usage.add(completion)
        if meter is not None:
            meter.observe(completion)
    return texts


def _calls(draws: Sequence[tuple[float, int]], *, probe: bool) -> list[tuple[float, int, int]]:
    """(temperature, answers, seed offset) per model call: a sampled draw longer than the
    probe is asked in two calls, its first PROBE_SAMPLES - 1 answers, then the rest."""
    calls = []
    for temperature, n in draws:
        first = PROBE_SAMPLES - 1
        if probe and temperature > 0 and n > first:
            calls += [(temperature, first, 0), (temperature, n - first, first)]
        else:
            calls.append((temperature, n, 0))
    return calls


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
