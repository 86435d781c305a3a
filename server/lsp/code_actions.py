"""`textDocument/codeAction`: "Self-debug `f`" (three modes) and "Run tests for `f`" where they
belong, and on a test function "Self-debug the failure of `test_x`" (the bug may be in any
function the test runs; self_debug_failure.py).

Where they belong (the LSP says servers "should only return relevant commands"; the VS Code
team's rule is a lightbulb only with a selection or on a diagnostic): the refactor actions
(`refactor.rewrite.selfdebug`) on a function's `def` line, when the user asks (Ctrl+., `gra`) or
selects it; "Self-debug" as a `quickfix.selfdebug` on a failing test's diagnostic. Nowhere else,
so the lightbulb is not lit on every line of every function; never a `source.*` action.

Why so little work here: editors ask for code actions on every cursor move, so listing is one
tree-sitter lookup and nothing else, on the document's tree kept per text (document_trees.py: a
big document is parsed off the event loop; one over the `maxDocumentBytes` setting gets no actions
and the user is told once); the real work happens when the user picks the action (the action
carries a Command; see run_tests.py and self_debug.py).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol.types import (
    TEXT_DOCUMENT_CODE_ACTION,
    CodeAction,
    CodeActionKind,
    CodeActionOptions,
    CodeActionParams,
    CodeActionTriggerKind,
    Command,
    Diagnostic,
    Position,
    Range,
)
from pygls.workspace.position_codec import PositionCodec
from pygls.workspace.text_document import TextDocument

from selfdebug.instrument.locate import FunctionLocation, locate_at
from selfdebug.instrument.source import ParsedSource
from selfdebug.server.engine.modes import Mode
from selfdebug.server.lsp.configuration import cached_settings
from selfdebug.server.lsp.diagnostics import SOURCE
from selfdebug.server.lsp.document_trees import over_limit
from selfdebug.server.lsp.positions import utf16_column
from selfdebug.server.lsp.run_tests import RUN_TESTS
from selfdebug.server.lsp.self_debug import SELF_DEBUG
from selfdebug.server.lsp.self_debug_failure import DEBUG_FAILURE

if TYPE_CHECKING:
    from selfdebug.server.lsp.server import SelfDebugServer

logger = logging.getLogger(__name__)

# The kinds declared in the server's capabilities, and the only ones it returns.
QUICKFIX = f"{CodeActionKind.QuickFix.value}.selfdebug"  # on a failing test's diagnostic
REFACTOR = f"{CodeActionKind.RefactorRewrite.value}.selfdebug"  # on a function's `def` line
KINDS = (QUICKFIX, REFACTOR)

# (title template, mode or None for the `mode` setting, applied when the session starts, command)
ACTIONS: tuple[tuple[str, Mode | None, str], ...] = (
    ("Self-debug `{name}`", None, SELF_DEBUG),
    ("Self-debug `{name}` with print debugging", "print", SELF_DEBUG),
    ("Self-debug `{name}` explaining the code", "explain", SELF_DEBUG),
    ("Run tests for `{name}`", None, RUN_TESTS),
)


def wanted(only: Sequence[str] | None, kind: str) -> bool:
    """Honour the client's `context.only` filter (kinds are hierarchical: "quickfix" matches
    "quickfix.selfdebug", "refactor" matches "refactor.rewrite.selfdebug")."""
    kinds = [getattr(k, "value", k) for k in only or ()]  # enum members or plain strings
    return not kinds or any(k == kind or kind.startswith(f"{k}.") for k in kinds)


def _action(title: str, kind: str, command: str, argument: dict[str, Any]) -> CodeAction:
    return CodeAction(
        title=title,
        kind=kind,
        command=Command(title=title, command=command, arguments=[argument]),
    )


def function_actions(
    uri: str, version: int | None, qualname: str, name: str, kind: str = REFACTOR
) -> list[CodeAction]:
    actions = []
    for title_template, mode, command in ACTIONS:
        argument: dict[str, Any] = {"uri": uri, "qualname": qualname, "version": version}
        if mode is not None:
            argument["mode"] = mode
        actions.append(_action(title_template.format(name=name), kind, command, argument))
    return actions


def failure_action(
    uri: str, version: int | None, qualname: str, name: str, kind: str = REFACTOR
) -> CodeAction:
    argument = {"uri": uri, "qualname": qualname, "version": version}
    return _action(f"Self-debug the failure of `{name}`", kind, DEBUG_FAILURE, argument)


def _test_failures(
    diagnostics: Sequence[Diagnostic], qualname: str, in_test: bool
) -> list[Diagnostic]:
    """Our failing-test diagnostics among those the client sent (the ones at the request): a
    function's own (its `qualname` in their data), or, in a test, its failing assert's."""

    def of_this(d: Diagnostic) -> bool:
        owner = d.data.get("qualname") if isinstance(d.data, dict) else None
        return in_test or owner in (None, qualname)

    return [
        d for d in diagnostics if d.source == SOURCE and d.code == "test-failure" and of_this(d)
    ]


def offered(
    uri: str,
    version: int | None,
    location: FunctionLocation,
    asked: Range,
    *,
    diagnostics: Sequence[Diagnostic] = (),
    only: Sequence[str] | None = None,
    trigger: CodeActionTriggerKind | None = None,
) -> list[CodeAction]:
    """The actions for a request at `asked` inside the function at `location`: quick fixes for
    the failing-test diagnostics the client sent; the refactor actions only on the `def` line,
    and on an automatic request (the lightbulb) only for a selection there."""
    is_test = is_test_function(uri, location.qualname)
    actions: list[CodeAction] = []
    failures = _test_failures(diagnostics, location.qualname, is_test)
    if failures and wanted(only, QUICKFIX):
        if is_test:  # the failing assert of this test: its failure, wherever the bug is
            fix = failure_action(uri, version, location.qualname, location.name, QUICKFIX)
        else:
            fix = function_actions(uri, version, location.qualname, location.name, QUICKFIX)[0]
        fix.diagnostics = failures
        fix.is_preferred = True
        actions.append(fix)
    on_def_line = asked.start.line <= location.def_line <= asked.end.line
    selected = asked.start != asked.end
    asked_for = trigger != CodeActionTriggerKind.Automatic or selected
    if on_def_line and asked_for and wanted(only, REFACTOR):
        if is_test:  # on a test, its failure is what the user wants debugged
            actions.append(failure_action(uri, version, location.qualname, location.name))
        actions.extend(function_actions(uri, version, location.qualname, location.name))
    return actions


def is_test_function(uri: str, qualname: str) -> bool:
    """A function pytest collects as a test by its default rules: `test*` in a test_*.py or
    *_test.py file, at module level or in a `Test*` class."""
    from selfdebug.server.runner.reach import is_test_file

    parts = qualname.split(".")
    in_test_class = len(parts) == 2 and parts[0].startswith("Test")
    file_name = uri.rsplit("/", 1)[-1]
    return (
        is_test_file(file_name)
        and file_name != "conftest.py"
        and parts[-1].startswith("test")
        and (len(parts) == 1 or in_test_class)
    )


def function_at(
    parsed: ParsedSource, position: Position, codec: PositionCodec
) -> FunctionLocation | None:
    """The innermost function at a client position (its encoding's columns)."""
    column = utf16_column(parsed.line(position.line), position.character, codec)
    return locate_at(parsed, position.line, column)


def too_big(ls: SelfDebugServer, document: TextDocument) -> bool:
    """Whether the document is over the `maxDocumentBytes` setting; the user is told once."""
    limit = cached_settings(ls, document.uri).max_document_bytes
    if not over_limit(document.source, limit):
        return False
    if ls.settings_cache.first_time(f"over the size limit: {document.uri}"):
        name = document.uri.rsplit("/", 1)[-1]
        size = len(document.source) / 1e6
        message = (
            f"`{name}` is over {limit / 1e6:g} MB ({size:.1f} MB; setting selfdebug."
            "maxDocumentBytes): no self-debug actions for it, so that the editor stays responsive"
        )
        logger.info("%s", message)
        ls.show(message)
    return True


def register(server: SelfDebugServer) -> None:
    @server.feature(TEXT_DOCUMENT_CODE_ACTION, CodeActionOptions(code_action_kinds=list(KINDS)))
    async def code_actions(
        ls: SelfDebugServer, params: CodeActionParams
    ) -> list[CodeAction] | None:
        uri, context = params.text_document.uri, params.context
        if not uri.endswith((".py", ".pyi")) or not any(wanted(context.only, k) for k in KINDS):
            return None
        document = ls.workspace.text_documents.get(uri)  # never read from disk here
        if document is None or too_big(ls, document):
            return None
        version = document.version
        try:
            position, codec = params.range.start, document.position_codec
            location = await ls.trees.analyse(
                document, lambda parsed: function_at(parsed, position, codec)
            )
        except Exception:  # a half-typed file must never break the editor's lightbulb
            logger.exception("code action lookup failed in %s", uri)
            return None
        if location is None:
            return None
        actions = offered(
            uri,
            version,
            location,
            params.range,
            diagnostics=context.diagnostics,
            only=context.only,
            trigger=context.trigger_kind,
        )
        return actions or None
