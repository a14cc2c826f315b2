"""`vbr lsp` keeps JSON-RPC's contract with the editor, spoken to over stdio as raw messages (a
client library would refuse to send the malformed ones): every request gets one reply under its
own id (JSON-RPC 2.0, "Response object"; LSP's error codes)."""
import json
import subprocess
import sys

from conftest import ROOT

HANG_GUARD = 120  # seconds: a guard against a hang only

PIG = ROOT / "examples" / "pig.vbr"
URI = PIG.as_uri()


def message(obj: dict) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(msg_id, method: str, params) -> bytes:
    return message({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})


def notification(method: str, params) -> bytes:
    return message({"jsonrpc": "2.0", "method": method, "params": params})


INITIALIZE = request(0, "initialize", {"capabilities": {}}) + notification("initialized", {})
OPEN = notification("textDocument/didOpen", {"textDocument": {
    "uri": URI, "languageId": "vbr", "version": 1, "text": PIG.read_text(encoding="utf-8")}})


def serve(payload: bytes) -> subprocess.CompletedProcess:
    """`vbr lsp` given `payload`, ended by shutdown and exit, as its whole input."""
    payload += request("bye", "shutdown", None) + notification("exit", None)
    return subprocess.run([sys.executable, "-m", "vbr", "lsp"], input=payload, capture_output=True,
                          timeout=HANG_GUARD, cwd=ROOT)


def session(payload: bytes) -> list[dict]:
    """Every message `vbr lsp` writes for `payload` (ended by shutdown and exit), in order."""
    out, messages = serve(payload).stdout, []
    while out:
        head, _, rest = out.partition(b"\r\n\r\n")
        length = int(next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
                      .split(b":")[1])
        messages.append(json.loads(rest[:length]))
        out = rest[length:]
    return messages


def replies(messages: list[dict]) -> dict:
    """The replies among `messages`, by id."""
    return {m["id"]: m for m in messages if "id" in m and "method" not in m}


def test_a_request_whose_params_do_not_fit_gets_an_invalid_params_error_under_its_id():
    # pygls failed to read them while decoding the JSON, logged it and never answered: an
    # editor waited for the reply for ever
    hover = "textDocument/hover"
    payload = INITIALIZE + OPEN + b"".join([
        request(1, hover, {"textDocument": {"uri": URI}}),  # no position
        request(2, hover, {"textDocument": {"uri": URI}, "position": {"line": -1, "character": 0}}),  # not a uinteger
        request("three", "textDocument/completion", {"textDocument": {"uri": URI}, "position": {"line": "a"}}),
        request(4, "textDocument/definition", None),
        request(5, hover, {"textDocument": {"uri": URI}, "position": {"line": 21, "character": 5}}),  # `score`
    ])
    got = replies(session(payload))
    for msg_id in (1, 2, "three", 4):
        assert got[msg_id]["error"]["code"] == -32602, got[msg_id]  # JSON-RPC's "Invalid params"
        assert "result" not in got[msg_id]
    assert "**var** `score`" in got[5]["result"]["contents"]["value"]  # the server reads on
    assert got["bye"] == {"jsonrpc": "2.0", "id": "bye", "result": None}


def test_a_request_before_initialize_gets_server_not_initialized_and_the_session_goes_on():
    # pygls answered with an internal error (-32603) carrying its Python traceback
    hover = {"textDocument": {"uri": URI}, "position": {"line": 21, "character": 5}}
    got = replies(session(request(1, "textDocument/hover", hover) + INITIALIZE + OPEN
                          + request(2, "textDocument/hover", hover)))
    assert got[1]["error"]["code"] == -32002 and "data" not in got[1]["error"]  # LSP's ServerNotInitialized
    assert "capabilities" in got[0]["result"]
    assert "**var** `score`" in got[2]["result"]["contents"]["value"]


def test_a_request_after_shutdown_gets_invalid_request():
    # pygls logged `Server shutting down. No more requests!` and never answered it
    payload = INITIALIZE + request(1, "shutdown", None) + request(2, "textDocument/documentSymbol",
                                                                  {"textDocument": {"uri": URI}})
    got = replies(session(payload))
    assert got[1] == {"jsonrpc": "2.0", "id": 1, "result": None}
    assert got[2]["error"]["code"] == -32600  # JSON-RPC's Invalid Request



def test_messages_it_cannot_read_are_logged_in_one_line_each_never_as_a_traceback():
    # pygls logged them through `logging`, which printed each with its Python traceback (twenty
    # to sixty lines) into the editor's log
    broken = b'{"jsonrpc": "2.0", "id": 9, "method": '
    payload = (INITIALIZE + OPEN + b"Content-Length: %d\r\n\r\n" % len(broken) + broken
               + request(1, "textDocument/hover", {"textDocument": {"uri": URI}})
               + request(2, "textDocument/rename", {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 0},
                                                    "newName": "x"}))
    run = serve(payload)
    err = run.stderr.decode()
    assert "Traceback" not in err and err.strip(), err
    lines = err.splitlines()
    assert all(line.startswith("vbr lsp: ") for line in lines), err
    assert any("JSONDecodeError" in line for line in lines), err
    assert run.returncode == 0


def test_exit_without_shutdown_ends_the_server_with_exit_code_1_and_after_it_with_0():
    # LSP, `exit`: "The server should exit with success code 0 if the shutdown request has been
    # received before; otherwise with error code 1". It ended with 0 either way
    def run(payload: bytes) -> int:
        return subprocess.run([sys.executable, "-m", "vbr", "lsp"], input=payload, capture_output=True,
                              timeout=HANG_GUARD, cwd=ROOT).returncode
    assert run(INITIALIZE + notification("exit", None)) == 1
    assert run(INITIALIZE + request(1, "shutdown", None) + notification("exit", None)) == 0
