"""pygls's LSP protocol, answering every request the protocol says must be answered.

JSON-RPC answers every request (a message with an `id` and a `method`) with a result or an
error carrying its id. pygls reads a message's params into lsprotocol's types as it decodes the
JSON; a request whose params do not fit (`textDocument/hover` without a `position`, a position of
line -1) failed there, before pygls knew it was a request: it was logged and never answered, so
the client waited for its reply for ever. Here such a request is answered with the error
`Invalid params` (-32602) under its own id.
"""
from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol


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
    """LanguageServerProtocol whose requests with unreadable params get an error reply."""

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
        super().handle_message(message)
