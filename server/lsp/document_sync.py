"""`textDocument/didChange` and `textDocument/didSave`: drop a function's test diagnostics once
its text changes, and re-run its tests on save when the `runOnSave` setting asks for it.

Why compare hashes rather than ranges: an edit anywhere can shift lines, but only a change of the
function's own text makes its failures out of date.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol.types import (
    TEXT_DOCUMENT_DID_CHANGE,
    TEXT_DOCUMENT_DID_SAVE,
    DidChangeTextDocumentParams,
    DidSaveTextDocumentParams,
)

from selfdebug.server.lsp.arguments import FunctionTarget
from selfdebug.server.lsp.configuration import cached_settings
from selfdebug.server.lsp.edits import function_hash_in

if TYPE_CHECKING:
    from selfdebug.server.lsp.server import SelfDebugServer


def register(server: SelfDebugServer) -> None:
    @server.feature(TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: SelfDebugServer, params: DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        owners = ls.diagnostics.owners_in(uri)
        if not owners:
            return
        document = ls.workspace.text_documents.get(uri)
        if document is None:
            return
        source = document.source
        changed: set[str] = set()
        for owner in owners:
            if function_hash_in(source, owner[1]) != ls.diagnostic_hashes.get(owner):
                changed |= ls.diagnostics.clear(owner)
                ls.diagnostic_hashes.pop(owner, None)
        ls.publish_diagnostics(changed)

    @server.feature(TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: SelfDebugServer, params: DidSaveTextDocumentParams) -> None:
        from selfdebug.server.lsp import flows

        uri = params.text_document.uri
        if not cached_settings(ls, uri).run_on_save:
            return
        for function_uri, qualname in list(ls.tested):
            if function_uri == uri:
                target = FunctionTarget(uri=uri, qualname=qualname)
                ls.spawn(flows.run_tests(ls, target))
