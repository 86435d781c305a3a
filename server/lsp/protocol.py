"""The JSON-RPC protocol with our repairs.

1. A request whose params do not fit the LSP types is answered with InvalidParams. Why: pygls
   2.1.1 fails to deserialize such a request before it knows where to answer and drops it, so the
   client waits forever (measured). Every request must get an answer.
2. `$/cancelRequest` reaches the job's CancelToken. Why: pygls runs `workspace/executeCommand`
   through a generator, so its own cancel only drops the reply while the session (model, tests)
   runs on; clients such as eglot cancel this way rather than through the progress bar.
3. Bodies arrive decoded through `receive` (from transport.py, which answers malformed JSON with
   -32700): a non-object
   -32600, and only the top-level object becomes a message (pygls structured every nested object
   that looked like JSON-RPC, and we then answered an id the client never sent).
4. -32603 answers carry a fixed sentence, never the exception text or traceback (they can hold
   paths, source or secrets); the details go to the server's log.
5. `didChange` for a document that was never opened is dropped quietly (pygls raised KeyError
   and showed it to the user).
6. Over TCP, nothing is handled before an `initialize` that presents the server's token
   (`initializationOptions.token`); a wrong token closes the connection.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from typing import Any

from lsprotocol.types import TEXT_DOCUMENT_DID_CHANGE
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol

from selfdebug.server.cancel import CancelToken

logger = logging.getLogger(__name__)

INTERNAL_ERROR = "internal error in the selfdebug server (the details are in its log)"
WRONG_TOKEN = (
    "wrong or missing token: send the content of the server's token file as "
    "initializationOptions.token"
)
PARSE_ERROR, INVALID_REQUEST, INTERNAL, NOT_INITIALIZED = -32700, -32600, -32603, -32002


class _Answered:
    """Stands in for a request that was already answered with an error."""


class AnsweringProtocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cancel_tokens: dict[Any, CancelToken] = {}
        self.required_token: str | None = None  # set by `serve --tcp`
        self.authenticated = False

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

    # -- from bytes to a message (transport.py calls these) ---------------------------------------
    def receive(self, data: Any) -> None:
        """Handle one decoded body (transport.py answers bodies that are not JSON)."""
        if not isinstance(data, dict):
            self._send_error(None, INVALID_REQUEST, "a message must be a JSON object")
            return
        try:
            message = self.structure_message(data)
        except JsonRpcException as error:
            logger.warning("dropped a malformed notification or response: %s", error)
            return
        self.handle_message(message)

    def send_parse_error(self, message: str) -> None:
        self._send_error(None, PARSE_ERROR, f"Parse error: {message}")

    def _send_error(self, msg_id: Any, code: int, message: str) -> None:
        error = {"code": code, "message": message}
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": error})

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
        if self.required_token is not None and not self.authenticated:
            self._authenticate(message)
            return
        if getattr(message, "method", None) == TEXT_DOCUMENT_DID_CHANGE:
            uri = message.params.text_document.uri
            if self._workspace is None or uri not in self._workspace.text_documents:
                logger.info("didChange for %s, which was never opened: ignored", uri)
                return
        super().handle_message(message)

    def _authenticate(self, message: Any) -> None:
        """Only an `initialize` carrying the token gets through; anything else is refused."""
        method, msg_id = getattr(message, "method", None), getattr(message, "id", None)
        if method == "initialize":
            options = message.params.initialization_options
            token = options.pop("token", None) if isinstance(options, dict) else None
            assert self.required_token is not None
            if isinstance(token, str) and hmac.compare_digest(token, self.required_token):
                self.authenticated = True
                super().handle_message(message)
                return
            self._send_error(msg_id, INVALID_REQUEST, WRONG_TOKEN)
            logger.warning("a TCP client presented a wrong token: connection closed")
            self._close_transport()
        elif msg_id is not None and method is not None:
            self._send_error(msg_id, NOT_INITIALIZED, "not initialized: send initialize first")

    def _close_transport(self) -> None:
        writer = self.writer
        if writer is not None:
            try:
                writer.close()
            except Exception:
                logger.debug("closing the connection failed", exc_info=True)

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        if error is not None and getattr(error, "code", None) == INTERNAL:
            logger.error("internal error answering %s: %s %s", msg_id, error.message, error.data)
            error = type(error)(code=INTERNAL, message=INTERNAL_ERROR)
        super()._send_response(msg_id, result, error)
