"""The JSON-RPC protocol with two repairs.

1. A request whose params do not fit the LSP types is answered with InvalidParams. Why: pygls
   2.1.1 fails to deserialize such a request before it knows where to answer and drops it, so the
   client waits forever (measured). Every request must get an answer.
2. `$/cancelRequest` reaches the job's CancelToken. Why: pygls runs `workspace/executeCommand`
   through a generator, so its own cancel only drops the reply while the session (model, tests)
   runs on; clients such as eglot cancel this way rather than through the progress bar.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol

from selfdebug.server.cancel import CancelToken

logger = logging.getLogger(__name__)


class _Answered:
    """Stands in for a request that was already answered with an error."""


class AnsweringProtocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cancel_tokens: dict[Any, CancelToken] = {}

    def cancel_with_request(self, token: CancelToken) -> Callable[[], None]:
        """Cancel `token` when the client cancels the request being handled now (if any).
        Returns the unregister function to call when the job ends."""
        msg_id = self.msg_id
        if msg_id is None:
            return lambda: None
        self._cancel_tokens[msg_id] = token

        def unregister() -> None:
            self._cancel_tokens.pop(msg_id, None)

        return unregister

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        token = self._cancel_tokens.pop(msg_id, None)
        if token is not None:
            token.cancel("cancelled by the client")
        super()._handle_cancel_notification(msg_id)

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
