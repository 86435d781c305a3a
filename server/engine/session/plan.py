"""A mode as the list of its steps, built here and nowhere else, from the requested mode's
strategy (modes.py: `uses_model`, `searches`, `edits_locally`, `turns_without_gain`):

- `search`: baseline, edit search (alone: no model call);
- `auto`: baseline, edit search (unless `auto_search` is off: localization only), the model's
  local edits (unless `model_edits_s` is 0), the model's turns in the planned modes;
- every other mode: baseline, localization, the model's turns.
"""

from __future__ import annotations

from dataclasses import dataclass

from selfdebug.server.engine.modes import (
    ModeStrategy,
    PlannedMode,
    plan_modes,
    strategy_of,
    why_no_probes,
)
from selfdebug.server.engine.session.pipeline import Pipeline, Step
from selfdebug.server.engine.session.steps import Baseline, EditSearch, Localize, ModelLocalEdits
from selfdebug.server.engine.session.turns import ModelTurns
from selfdebug.server.engine.target import TargetFunction
from selfdebug.server.engine.types import DebugRequest


def steps_for(
    requested: ModeStrategy, request: DebugRequest, probe_problem: str = ""
) -> list[Step]:
    """The steps a session of `requested` runs for `request`, in order."""
    alone = not requested.uses_model  # the search is the whole mode
    localize = EditSearch if requested.runs_search(request) else Localize
    steps: list[Step] = [Baseline(probe_problem), localize(alone=alone)]
    if requested.runs_local_edits(request):
        steps.append(ModelLocalEdits())
    if requested.uses_model:
        steps.append(ModelTurns(give_up_after=requested.turns_without_gain))
    return steps


@dataclass(frozen=True)
class SessionPlan:
    pipeline: Pipeline
    modes: list[PlannedMode]  # the turns' modes, in order (modes.plan_modes)


def plan_session(request: DebugRequest, source: str, target: TargetFunction) -> SessionPlan:
    """The steps and the turns' modes of a session on the located function."""
    probe_problem = why_no_probes(request.mode, source, target.qualname, request.model.probe_level)
    modes = plan_modes(
        request.mode, has_tests=bool(request.target.tests), can_probe=not probe_problem
    )
    steps = steps_for(strategy_of(request.mode), request, probe_problem)
    return SessionPlan(Pipeline(steps), modes)
