"""`workspace/executeCommand`: `selfdebug.selfDebug`, `selfdebug.proposeFix` and
`selfdebug.runTests`.

All take one JSON object (schema in arguments.py): {uri, qualname | position, version?, mode?}.
Malformed arguments are answered at once with InvalidParams; the work itself (flows.py) runs off
the event loop and the response arrives when it is done, with a summary object.
`selfdebug.selfDebug` sends its fix as `workspace/applyEdit` (needsConfirmation);
`selfdebug.proposeFix` runs the same session but answers with the fix instead of applying it
(`proposal`, schema in proposal.py), so an editor can show a diff and apply it on Accept.
"""

from __future__ import annotations

from typing import Any

from selfdebug.server.lsp.arguments import parse_target
from selfdebug.server.lsp.server import SelfDebugServer  # pygls reads the handlers' annotations

SELF_DEBUG = "selfdebug.selfDebug"
PROPOSE_FIX = "selfdebug.proposeFix"
RUN_TESTS = "selfdebug.runTests"


def register(server: SelfDebugServer) -> None:
    from selfdebug.server.lsp import flows

    @server.command(SELF_DEBUG)
    async def self_debug(ls: SelfDebugServer, *arguments: Any) -> dict[str, Any]:
        return await flows.self_debug(ls, parse_target(arguments))

    @server.command(PROPOSE_FIX)
    async def propose_fix(ls: SelfDebugServer, *arguments: Any) -> dict[str, Any]:
        answer = await flows.self_debug(ls, parse_target(arguments), propose=True)
        return {"proposal": None, **answer}  # null also when the session failed or was cancelled

    @server.command(RUN_TESTS)
    async def run_tests(ls: SelfDebugServer, *arguments: Any) -> dict[str, Any]:
        return await flows.run_tests(ls, parse_target(arguments))
