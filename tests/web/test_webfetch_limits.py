"""WebFetch against loopback servers that never finish on their own terms: one trickles its body a byte at a time
(a per-read timeout never fires), one sends a body without end. The fetch's overall deadline and its size cap end
both, and the model is told which limit did."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from agentcli.web.fetch import FetchLimits
from tests.conftest import collect
from tests.web.test_webfetch_e2e import fetch_call, results

TRICKLE_BYTES = 100
TRICKLE_GAP_S = 0.2
CHUNK = b"<p>" + b"x" * 16_384 + b"</p>\n"
ENDLESS_CAP_BYTES = 1 << 30
"""The endless server stops by itself after this much, should the client never hang up."""


@dataclass
class _Served:
    """What the servers saw, for the assertions (the handlers run on the server's threads)."""

    trickled: int = 0
    trickle_done: bool = False
    endless_sent: int = 0
    stop: threading.Event = field(default_factory=threading.Event)


class _SlowSite(BaseHTTPRequestHandler):
    served: _Served

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        if self.path == "/trickle":
            self.send_header("Content-Length", str(TRICKLE_BYTES))
            self.end_headers()
            self._trickle()
        else:
            self.end_headers()  # no length: the body ends when the connection does
            self._endless()

    def _trickle(self) -> None:
        try:
            for _ in range(TRICKLE_BYTES):
                self.wfile.write(b"x")
                self.wfile.flush()
                self.served.trickled += 1
                if self.served.stop.wait(TRICKLE_GAP_S):
                    return
            self.served.trickle_done = True
        except OSError:
            return  # the client hung up

    def _endless(self) -> None:
        try:
            while self.served.endless_sent < ENDLESS_CAP_BYTES and not self.served.stop.is_set():
                self.wfile.write(CHUNK)
                self.served.endless_sent += len(CHUNK)
        except OSError:
            return

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def slow_site() -> Iterator[tuple[str, _Served]]:
    served = _Served()
    handler = type("Handler", (_SlowSite,), {"served": served})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", served
    served.stop.set()
    server.shutdown()
    server.server_close()


def _limit(engine: Any, limits: FetchLimits) -> None:
    engine.config.registry.get("WebFetch").limits = limits


async def test_a_trickling_server_is_cut_off_at_the_fetch_deadline(fake_api, make_engine, slow_site):
    site, served = slow_site
    server = fake_api(
        {
            "turns": [
                {"content": [fetch_call("toolu_slow", f"{site}/trickle")]},
                {"content": [{"type": "text", "text": "It was too slow."}]},
            ]
        }
    )
    engine = make_engine(server, allowed_tools=["WebFetch(domain:127.0.0.1)"])
    _limit(engine, FetchLimits(total_s=1.0))
    messages = await collect(engine, "read the slow page")

    [failed] = results(server.requests[1].body)
    assert failed["is_error"]
    assert f"{site}/trickle" in failed["content"] and "within 1 s" in failed["content"]
    assert "bytes had arrived" in failed["content"]
    assert not served.trickle_done and served.trickled < TRICKLE_BYTES
    assert messages[-1]["result"] == "It was too slow."
    assert len(server.requests) == 2  # no small-model request for a page that never came


async def test_an_endless_body_is_cut_at_the_size_cap(fake_api, make_engine, slow_site):
    site, served = slow_site
    cap = 256 * 1024
    server = fake_api(
        {
            "turns": [
                {"content": [fetch_call("toolu_big", f"{site}/endless")]},
                {
                    "when": {"first_user_text_contains": "Web page content"},
                    "content": [{"type": "text", "text": "Many x."}],
                },
                {"content": [{"type": "text", "text": "Done."}]},
            ]
        }
    )
    engine = make_engine(server, allowed_tools=["WebFetch(domain:127.0.0.1)"])
    _limit(engine, FetchLimits(max_bytes=cap))
    messages = await collect(engine, "read the big page")

    page = server.requests[1].body["messages"][0]["content"]
    assert f"Cut short: WebFetch reads at most {cap:,} bytes" in page
    [answer] = results(server.requests[2].body)
    assert answer["content"] == "Many x." and not answer.get("is_error")
    tool_result = next(m for m in messages if m["type"] == "user" and m.get("tool_use_result"))
    assert tool_result["tool_use_result"]["bytes"] == cap and tool_result["tool_use_result"]["truncated"]
    assert served.endless_sent < ENDLESS_CAP_BYTES  # the client hung up; the server did not run out
