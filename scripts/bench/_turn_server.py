"""A Messages API stand-in for timing clients, not for testing them: it answers at once, checks nothing, and notes
when each request arrived and when its answer was out, so a client's own time between turns can be read off.

Every request to ``/v1/messages`` that offers tools gets a ``Read`` call of :attr:`TurnServer.path` until
:attr:`TurnServer.tool_turns` such answers have gone out, then a short text; a request without tools (a title, a
summary) gets the text. Anything else is a 404.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agentcli.testing.scenario import Turn
from agentcli.testing.sse import encode_events, render_stream


@dataclass(frozen=True)
class Exchange:
    arrived: float
    """time.monotonic() when the request line and headers had been read."""
    answered: float
    """time.monotonic() when the last byte of the answer was written."""
    tool_turn: bool


USAGE = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
"""Small on purpose: no client compacts a conversation that says it is small."""


def answer(model: str, content: dict[str, Any]) -> bytes:
    """One streamed answer in the real API's wire form, rendered by the fake API's own encoder."""
    turn = Turn.model_validate({"content": [content]})
    return b"".join(encode_events(render_stream(turn, message_id="msg_bench", model=model, usage=USAGE)))


def tool_answer(model: str, number: int, path: str) -> bytes:
    return answer(
        model, {"type": "tool_use", "id": f"toolu_bench_{number:06d}", "name": "Read", "input": {"file_path": path}}
    )


def text_answer(model: str, text: str) -> bytes:
    return answer(model, {"type": "text", "text": text})


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_POST(self) -> None:
        arrived = time.monotonic()
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.path.split("?")[0].rstrip("/") != "/v1/messages":
            self._reply(
                404, b'{"type":"error","error":{"type":"not_found_error","message":"not here"}}', "application/json"
            )
            return
        request = json.loads(body)
        owner = self.server.owner
        model = str(request.get("model") or "claude")
        with owner.lock:
            tool_turn = bool(request.get("tools")) and owner.tool_answers < owner.tool_turns
            number = owner.tool_answers
            owner.tool_answers += tool_turn
        answer = tool_answer(model, number, owner.path) if tool_turn else text_answer(model, "done")
        self._reply(200, answer, "text/event-stream")
        with owner.lock:
            owner.exchanges.append(Exchange(arrived, time.monotonic(), tool_turn))

    do_GET = do_POST

    def _reply(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.send_header("request-id", "req_bench")
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the exchanges are the record."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, owner: TurnServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Handler)


class TurnServer:
    def __init__(self, path: str, tool_turns: int) -> None:
        self.path = path
        self.tool_turns = tool_turns
        self.tool_answers = 0
        self.exchanges: list[Exchange] = []
        self.lock = threading.Lock()
        self._httpd = _Server(self)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> TurnServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def client_times(self) -> list[float]:
        """Per tool turn after the first: from the previous answer's last byte to this request's arrival."""
        turns = [exchange for exchange in self.exchanges if exchange.tool_turn]
        return [later.arrived - earlier.answered for earlier, later in itertools.pairwise(turns)]
