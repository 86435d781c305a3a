"""One self-debugging session as a pipeline of steps (issue 50): the context a run carries
(`context.py`), the pipeline that runs the steps in order and turns budgets, cancels and errors
into stop reasons (`pipeline.py`), the steps (`steps.py`: baseline, localization and edit search,
the model's local edits; `turns.py`: the model's turns), a mode as the list of its steps
(`plan.py`), and `run_session`, the one entry of the CLI, the LSP server and the benchmark
(`run.py`)."""

from selfdebug.server.engine.session.run import Session, run_session
from selfdebug.server.engine.types import DebugRequest, DebugResult

__all__ = ["DebugRequest", "DebugResult", "Session", "run_session"]
