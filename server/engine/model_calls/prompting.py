"""Render the prompt of one step from Jinja2 templates, in the form the backend's model needs.

Templates ship as package data (`selfdebug.prompts`, `completion/<step>.j2` for base models and
`chat/<step>.j2` for instruct models). A user folder (DebugRequest.prompts_dir or the env variable
SELFDEBUG_PROMPTS_DIR) overrides any template by the same relative name, so prompts can be tuned
without touching the package. StrictUndefined turns a missing variable into an error instead of a
silently empty prompt.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import jinja2

from selfdebug.server.backends.base import CompletionRequest, Message, PromptForm
from selfdebug.server.engine.history import Attempt
from selfdebug.server.engine.modes import STRATEGIES
from selfdebug.server.engine.redact import scrub

PROMPTS_DIR_ENV = "SELFDEBUG_PROMPTS_DIR"

# Every step the engine can ask for (one template per step per form): each mode's fixing call,
# and the call of `print` mode that asks for the prints first.
STEPS: tuple[str, ...] = (
    *dict.fromkeys(strategy.fix_step for strategy in STRATEGIES.values()),
    "add_prints",
)

# Base models continue the few-shot text; these end an answer (our exemplars close with "### End").
COMPLETION_STOP: list[str] = ["### End", "\n### Function\n", "\n### Tests\n"]


CHAT_SEPARATOR = "----- user -----"


@dataclass
class ShownTest:
    nodeid: str
    source: str


@dataclass
class PromptVars:
    """Everything a template may use, always fully set (empty strings when not relevant)."""

    name: str  # the function's own name
    qualname: str
    file: str  # path shown to the model (relative to the project)
    code: str  # the current function, dedented
    signature: str = ""  # its header (decorators + def line(s)), prefilled for base models
    class_name: str = ""
    tests: list[ShownTest] = field(default_factory=list)
    tally: str = ""  # "1/3"
    failures: str = ""  # formatted failing tests (feedback.py)
    check_error: str = ""  # why the previous answer was rejected
    failing_test: str = ""  # node id of the test run with prints/probes
    log: str = ""  # real prints/probe log, truncated with a marker
    log_kind: str = ""  # "prints" | "probes"
    code_with_prints: str = ""
    history: list[Attempt] = field(default_factory=list)  # the latest attempts (history.py)
    repeat_note: str = ""  # the last answer or this request repeats an earlier one
    code_only: bool = False  # ask for the code alone (the last answer was cut at its length)
    edit_form: bool = False  # ask for SEARCH/REPLACE blocks, not the function (answer_form.py)
    suspicious: str = ""  # "lines most likely at fault: 7, 5" (search/localize.py); "" when unknown
    search_hint: str = ""  # edits that pass the tests at several lines (judge_survivors)
    turn: int = 1
    max_turns: int = 1


@dataclass
class RenderedPrompt:
    """What goes to the backend, plus how the answer starts (completion prompts end inside a
    code fence, so the reply begins with code)."""

    step: str
    form: PromptForm
    prompt: str | None = None
    messages: list[Message] | None = None
    stop: list[str] = field(default_factory=list)

    @property
    def opens_code_fence(self) -> bool:
        """The prompt ends inside a ```python block: the reply continues code."""
        if self.prompt is None:
            return False
        start = self.prompt.rfind("```python\n")
        return start >= 0 and self.prompt[start:].count("```") == 1

    @property
    def code_prefix(self) -> str:
        """Code the prompt already wrote inside the open fence (the function's header)."""
        if not self.opens_code_fence or self.prompt is None:
            return ""
        return self.prompt[self.prompt.rfind("```python\n") + len("```python\n") :]

    @property
    def text(self) -> str:
        """The whole prompt as one text (to tell two prompts apart)."""
        if self.prompt is not None:
            return self.prompt
        return "\n".join(f"{m['role']}: {m['content']}" for m in self.messages or [])

    def to_request(
        self,
        *,
        max_tokens: int,
        temperature: float,
        n: int,
        deadline_s: float | None,
        stall_s: float | None = None,
        seed: int = 0,
        cold: bool = False,
    ) -> CompletionRequest:
        return CompletionRequest(
            prompt=self.prompt,
            messages=self.messages,
            max_tokens=max_tokens,
            stop=list(self.stop),
            temperature=temperature,
            seed=seed,
            n=n,
            deadline_s=deadline_s,
            stall_s=stall_s,
            cold=cold,
        )


def _package_source(name: str) -> str | None:
    node = resources.files("selfdebug.prompts")
    for part in name.split("/"):
        node = node.joinpath(part)
    try:
        return node.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _tidy(text: str) -> str:
    """Collapse the blank-line runs that optional template sections leave behind."""
    return re.sub(r"\n{3,}", "\n\n", text).strip()


class PromptLibrary:
    """Loads and renders templates; one instance per session (cheap)."""

    def __init__(self, override_dir: Path | str | None = None) -> None:
        if override_dir is None and os.environ.get(PROMPTS_DIR_ENV):
            override_dir = os.environ[PROMPTS_DIR_ENV]
        loaders: list[jinja2.BaseLoader] = []
        if override_dir:
            loaders.append(jinja2.FileSystemLoader(str(override_dir)))
        loaders.append(jinja2.FunctionLoader(_package_source))
        self.override_dir = Path(override_dir) if override_dir else None
        self.env = jinja2.Environment(
            loader=jinja2.ChoiceLoader(loaders),
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
            autoescape=False,  # plain text prompts, never HTML
        )

    def render(self, step: str, form: PromptForm, variables: PromptVars) -> RenderedPrompt:
        if step not in STEPS:
            raise ValueError(f"unknown prompt step {step!r}")
        template = self.env.get_template(f"{form}/{step}.j2")
        if form == "completion":
            prompt = scrub(template.render(v=variables))  # no secret leaves in a prompt
            return RenderedPrompt(step=step, form=form, prompt=prompt, stop=COMPLETION_STOP)
        # Chat templates render "system text, separator line, user text" (see chat/base.j2).
        text = scrub(template.render(v=variables))
        system, separator, user = text.partition(f"\n{CHAT_SEPARATOR}\n")
        if not separator:
            system, user = "", text
        system, user = _tidy(system), _tidy(user)
        messages: list[Message] = []
        if system:
            messages.append({"role": "system", "content": system})
        messages.append({"role": "user", "content": user})
        return RenderedPrompt(step=step, form=form, messages=messages)
