"""`workspace/executeCommand`: `selfdebug.selfDebug` and `selfdebug.runTests`.

Both take one JSON object (schema in arguments.py): {uri, qualname | position, version?, mode?}.
Malformed arguments are answered at once with InvalidParams; the work itself (flows.py) runs off
the event loop and the response arrives when it is done, with a summary object.
"""

from __future__ import annotations

from typing import Any

from selfdebug.server.lsp.arguments import parse_target
from selfdebug.server.lsp.server import SelfDebugServer  # pygls reads the handlers' annotations

SELF_DEBUG = "selfdebug.selfDebug"
RUN_TESTS = "selfdebug.runTests"


def register(server: SelfDebugServer) -> None:
    from selfdebug.server.lsp import flows

    @server.command(SELF_DEBUG)
    async def self_debug(ls: SelfDebugServer, *arguments: Any) -> dict[str, Any]:
        return await flows.self_debug(ls, parse_target(arguments))

    @server.command(RUN_TESTS)
    async def run_tests(ls: SelfDebugServer, *arguments: Any) -> dict[str, Any]:
        return await flows.run_tests(ls, parse_target(arguments))
