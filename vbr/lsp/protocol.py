"""pygls's LSP protocol, answering every request the protocol says must be answered.

JSON-RPC answers every request (a message with an `id` and a `method`) with a result or an
error carrying its id. pygls reads a message's params into lsprotocol's types as it decodes the
JSON; a request whose params do not fit (`textDocument/hover` without a `position`, a position of
line -1) failed there, before pygls knew it was a request: it was logged and never answered, so
the client waited for its reply for ever. Here such a request is answered with the error
`Invalid params` (-32602) under its own id.

LSP also says what a request outside the session gets: before `initialize`, the error
`ServerNotInitialized` (-32002; pygls answered with an internal error and its traceback), and
after `shutdown`, `InvalidRequest` (-32600; pygls logged it and never answered).
"""
from __future__ import annotations

from typing import Any

from lsprotocol.types import EXIT, INITIALIZE
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcServerNotInitialized
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCRequest


class _Unreadable:
    """A request whose params could not be read: its id and why."""

    __slots__ = ("id", "error")

    def __init__(self, msg_id, error: JsonRpcException):
        self.id, self.error = msg_id, error


def _request_id(data: Any):
    """The id of `data` when it is a JSON-RPC request with a usable id (a number or a string),
    else None."""
    if not (isinstance(data, dict) and "jsonrpc" in data and "method" in data and "id" in data):
        return None
    msg_id = data["id"]
    return msg_id if isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool) else None


class VbrProtocol(LanguageServerProtocol):
    """LanguageServerProtocol whose requests with unreadable params, before `initialize` or after
    `shutdown`, get an error reply."""

    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            msg_id = _request_id(data)
            if msg_id is None:
                raise
            return _Unreadable(msg_id, exc)

    def handle_message(self, message):
        if isinstance(message, _Unreadable):
            self._send_response(message.id, None, message.error.to_response_error())
            return
        refused = self._outside_session(message)
        if refused is not None:
            self._send_response(message.id, None, refused.to_response_error())
            return
        super().handle_message(message)

    def _outside_session(self, message) -> JsonRpcException | None:
        """The error a request gets before `initialize` or after `shutdown`; None for any other
        message."""
        if not isinstance(message, RPCRequest) or message.method == EXIT:
            return None
        if self._shutdown:
            return JsonRpcInvalidRequest("the server is shut down: no request but exit is answered")
        if self._workspace is None and message.method != INITIALIZE:
            return JsonRpcServerNotInitialized("the server is not initialized: send initialize first")
        return None
