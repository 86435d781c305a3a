"""`textDocument/codeAction`: offer "Self-debug `f`" (three modes) and "Run tests for `f`" on the
Python function under the cursor, and on a test function "Self-debug the failure of `test_x`"
(the bug may be in any function the test runs; self_debug_failure.py).

Why so little work here: editors ask for code actions on every cursor move, so listing is one
tree-sitter lookup and nothing else; the real work happens when the user picks the action (the
action carries a Command; see run_tests.py and self_debug.py).
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
    Command,
)

from selfdebug.server.engine.modes import Mode
from selfdebug.server.lsp.positions import utf16_position
from selfdebug.server.lsp.run_tests import RUN_TESTS
from selfdebug.server.lsp.self_debug import SELF_DEBUG
from selfdebug.server.lsp.self_debug_failure import DEBUG_FAILURE

if TYPE_CHECKING:
    from selfdebug.server.lsp.server import SelfDebugServer

logger = logging.getLogger(__name__)

KIND = f"{CodeActionKind.QuickFix.value}.selfdebug"

# (title template, mode or None for the `mode` setting, applied when the session starts, command)
ACTIONS: tuple[tuple[str, Mode | None, str], ...] = (
    ("Self-debug `{name}`", None, SELF_DEBUG),
    ("Self-debug `{name}` with print debugging", "print", SELF_DEBUG),
    ("Self-debug `{name}` explaining the code", "explain", SELF_DEBUG),
    ("Run tests for `{name}`", None, RUN_TESTS),
)


def wanted(only: Sequence[str] | None) -> bool:
    """Honour the client's `context.only` filter (kinds are hierarchical: "quickfix" matches)."""
    kinds = [getattr(kind, "value", kind) for kind in only or ()]  # enum members or plain strings
    return not kinds or any(kind == KIND or KIND.startswith(f"{kind}.") for kind in kinds)


def function_actions(uri: str, version: int | None, qualname: str, name: str) -> list[CodeAction]:
    actions = []
    for title_template, mode, command in ACTIONS:
        title = title_template.format(name=name)
        argument: dict[str, Any] = {"uri": uri, "qualname": qualname, "version": version}
        if mode is not None:
            argument["mode"] = mode
        actions.append(
            CodeAction(
                title=title,
                kind=KIND,
                command=Command(title=title, command=command, arguments=[argument]),
            )
        )
    return actions


def failure_action(uri: str, version: int | None, qualname: str, name: str) -> CodeAction:
    title = f"Self-debug the failure of `{name}`"
    argument = {"uri": uri, "qualname": qualname, "version": version}
    command = Command(title=title, command=DEBUG_FAILURE, arguments=[argument])
    return CodeAction(title=title, kind=KIND, command=command)


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


def register(server: SelfDebugServer) -> None:
    @server.feature(TEXT_DOCUMENT_CODE_ACTION, CodeActionOptions(code_action_kinds=[KIND]))
    def code_actions(ls: SelfDebugServer, params: CodeActionParams) -> list[CodeAction] | None:
        uri = params.text_document.uri
        if not uri.endswith((".py", ".pyi")) or not wanted(params.context.only):
            return None
        try:
            from selfdebug.instrument import locate_at

            document = ls.workspace.text_documents.get(uri)  # never read from disk here
            if document is None:
                return None
            line, column = utf16_position(document, params.range.start)
            location = locate_at(document.source, line, column)
        except Exception:  # a half-typed file must never break the editor's lightbulb
            logger.exception("code action lookup failed in %s", uri)
            return None
        if location is None:
            return None
        actions = function_actions(uri, document.version, location.qualname, location.name)
        if is_test_function(uri, location.qualname):
            failure = failure_action(uri, document.version, location.qualname, location.name)
            actions.insert(0, failure)  # on a test, its failure is what the user wants debugged
        return actions
