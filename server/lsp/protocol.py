"""The JSON-RPC protocol with one repair: a request whose params do not fit the LSP types is
answered with InvalidParams.

Why: pygls 2.1.1 fails to deserialize such a request before it knows where to answer and drops
it, so the client waits forever (measured). Every request must get an answer.
"""

from __future__ import annotations

import logging
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol

logger = logging.getLogger(__name__)


class _Answered:
    """Stands in for a request that was already answered with an error."""


class AnsweringProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if not ("id" in data and "method" in data):
                raise  # a notification or a response: nobody waits for an answer
            cause = error.__cause__
            message = f"invalid params for {data['method']}: {cause}" if cause else str(error)
            reply = JsonRpcInvalidParams(message) if error.code == -32602 else error
            self._send_response(data["id"], error=reply.to_response_error())
            return _Answered()

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Answered):
            return
        super().handle_message(message)
