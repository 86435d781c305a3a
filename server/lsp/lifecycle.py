"""`initialize` and `shutdown`: keep the client's `initializationOptions` (the base layer of the
settings) and release the model and the worker threads on the way out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol.types import INITIALIZE, SHUTDOWN, InitializeParams

if TYPE_CHECKING:
    from selfdebug.server.lsp.server import SelfDebugServer


def register(server: SelfDebugServer) -> None:
    @server.feature(INITIALIZE)
    def initialize(ls: SelfDebugServer, params: InitializeParams) -> None:
        ls.settings_cache.initialization_options = params.initialization_options

    @server.feature(SHUTDOWN)
    def shutdown(ls: SelfDebugServer, params: None) -> None:
        ls.close()
