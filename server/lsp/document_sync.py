"""`textDocument/didChange`, `didClose` and `didSave`: drop a function's test diagnostics once
its text changes, forget a closed document's tree, and re-run its tests on save when the
`runOnSave` setting asks for it.

Why compare hashes rather than ranges: an edit anywhere can shift lines, but only a change of the
function's own text makes its failures out of date. The hashes are taken on the document's kept
tree (document_trees.py: a big one parsed off the event loop); a document over the
`maxDocumentBytes` setting is not parsed at all, so any change of it drops its diagnostics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol.types import (
    TEXT_DOCUMENT_DID_CHANGE,
    TEXT_DOCUMENT_DID_CLOSE,
    TEXT_DOCUMENT_DID_SAVE,
    DidChangeTextDocumentParams,
    DidCloseTextDocumentParams,
    DidSaveTextDocumentParams,
)

from selfdebug.instrument.source import ParsedSource
from selfdebug.server.lsp.configuration import cached_settings
from selfdebug.server.lsp.document_trees import over_limit
from selfdebug.server.lsp.edits import function_hash_in
from selfdebug.server.lsp.run_tests import rerun_on_save

if TYPE_CHECKING:
    from selfdebug.server.lsp.server import SelfDebugServer


def register(server: SelfDebugServer) -> None:
    @server.feature(TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: SelfDebugServer, params: DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        document = ls.workspace.text_documents.get(uri)
        if document is None or not ls.diagnostics.owners_in(uri):
            return  # nothing published for it: nothing to compare (and no parse)
        if over_limit(document.source, cached_settings(ls, uri).max_document_bytes):
            changed = ls.diagnostics.drop_outdated(uri, lambda qualname: None)  # all of them
        else:

            def outdated(parsed: ParsedSource) -> set[str]:
                return ls.diagnostics.drop_outdated(uri, lambda q: function_hash_in(parsed, q))

            changed = await ls.trees.analyse(document, outdated)
        ls.publish_diagnostics(changed)

    @server.feature(TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: SelfDebugServer, params: DidCloseTextDocumentParams) -> None:
        ls.trees.forget(params.text_document.uri)

    @server.feature(TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: SelfDebugServer, params: DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if cached_settings(ls, uri).run_on_save:
            rerun_on_save(ls, uri)
