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

from selfdebug.server.lsp.configuration import cached_settings
from selfdebug.server.lsp.edits import function_hash_in
from selfdebug.server.lsp.run_tests import rerun_on_save

if TYPE_CHECKING:
    from selfdebug.server.lsp.server import SelfDebugServer


def register(server: SelfDebugServer) -> None:
    @server.feature(TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: SelfDebugServer, params: DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        document = ls.workspace.text_documents.get(uri)
        if document is None:
            return
        source = document.source
        changed = ls.diagnostics.drop_outdated(
            uri, lambda qualname: function_hash_in(source, qualname)
        )
        ls.publish_diagnostics(changed)

    @server.feature(TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: SelfDebugServer, params: DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if cached_settings(ls, uri).run_on_save:
            rerun_on_save(ls, uri)
