"""WebFetch end to end against a loopback web server: HTML to Markdown, the small-model answer, domain rules,
redirects to other hosts, and the answer's cost billed to the session."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from agentcli.api.pricing import cost_usd
from tests.conftest import collect

PAGE = (
    b"<!doctype html><html><head><title>Demo</title><script>var tracking = 1;</script></head><body>"
    b"<h1>Release 2.0</h1><p>The <b>fast</b> path is <a href='/docs'>documented</a>.</p></body></html>"
)


class _Site(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/moved":
            self.send_response(301)
            self.send_header("Location", f"http://localhost:{self.server.server_address[1]}/page")
            self.end_headers()
            return
        if self.path == "/missing":
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def fetch_call(tool_id: str, url: str) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": tool_id,
        "name": "WebFetch",
        "input": {"url": url, "prompt": "What is new in the release?"},
    }


def results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"]


async def test_a_page_is_read_by_the_small_model_and_billed(fake_api, make_engine, site: str):
    server = fake_api(
        {
            "turns": [
                {
                    "when": {"first_user_text_contains": "release"},
                    "content": [fetch_call("toolu_f", f"{site}/page")],
                    "usage": {"input_tokens": 50, "output_tokens": 10},
                },
                {
                    "when": {"first_user_text_contains": "Web page content"},
                    "content": [{"type": "text", "text": "Release 2.0 documents the fast path."}],
                    "usage": {"input_tokens": 700, "output_tokens": 12},
                },
                {
                    "when": {"first_user_text_contains": "release"},
                    "content": [{"type": "text", "text": "Done."}],
                    "usage": {"input_tokens": 80, "output_tokens": 2},
                },
            ]
        }
    )
    engine = make_engine(server, allowed_tools=["WebFetch(domain:127.0.0.1)"])
    messages = await collect(engine, "what is in the release?")

    reader = server.requests[1].body
    assert reader["model"] == "claude-haiku-5-5"
    page = reader["messages"][0]["content"]
    assert "# Release 2.0" in page and "**fast**" in page and "[documented](/docs)" in page
    assert "<p>" not in page and "tracking" not in page
    [answer] = results(server.requests[2].body)
    assert answer["content"] == "Release 2.0 documents the fast path."
    result = messages[-1]
    expected = sum(
        cost_usd(model, usage) or 0
        for model, usage in (
            ("claude-sonnet-5-5", {"input_tokens": 50, "output_tokens": 10}),
            ("claude-haiku-5-5", {"input_tokens": 700, "output_tokens": 12}),
            ("claude-sonnet-5-5", {"input_tokens": 80, "output_tokens": 2}),
        )
    )
    assert result["total_cost_usd"] == pytest.approx(expected)


async def test_domain_rules_redirects_and_errors(fake_api, make_engine, site: str):
    port = site.rsplit(":", 1)[1]
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        fetch_call("toolu_other", f"http://localhost:{port}/page"),
                        fetch_call("toolu_moved", f"{site}/moved"),
                        fetch_call("toolu_404", f"{site}/missing"),
                        fetch_call("toolu_ftp", "ftp://127.0.0.1/x"),
                    ]
                },
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    engine = make_engine(server, allowed_tools=["WebFetch(domain:127.0.0.1)"])
    messages = await collect(engine, "fetch them")
    other, moved, missing, ftp = results(server.requests[1].body)
    assert other["is_error"] and "WebFetch(domain:localhost)" in other["content"]
    assert moved["content"].startswith("REDIRECT DETECTED")
    assert f"Redirect URL: http://localhost:{port}/page" in moved["content"]
    assert missing["is_error"] and "HTTP 404" in missing["content"]
    assert ftp["is_error"] and "Invalid URL" in ftp["content"]
    assert [d["tool_use_id"] for d in messages[-1]["permission_denials"]] == ["toolu_other"]


SEARCH_RESULTS = [
    {
        "type": "web_search_result",
        "url": "https://example.com/release",
        "title": "Release notes",
        "encrypted_content": "abc123",
        "page_age": "1 day",
    }
]


def search_turn() -> dict[str, Any]:
    return {
        "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "input": {"query": "agentcli release"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": SEARCH_RESULTS},
            {"type": "text", "text": "The release came out yesterday."},
        ],
        "usage": {"input_tokens": 1000, "output_tokens": 50, "web_search_requests": 1},
    }


async def test_server_web_search_passes_through_and_is_priced(fake_api, make_engine):
    server = fake_api({"turns": [search_turn(), {"content": [{"type": "text", "text": "Anything else?"}]}]})
    engine = make_engine(server, allowed_tools=["WebSearch"])
    messages = await collect(engine, "when was the release?")
    await collect(engine, "thanks")
    [search_tool] = [t for t in server.requests[0].body["tools"] if t.get("type") == "web_search_20250305"]
    assert search_tool["name"] == "web_search"
    kept = server.requests[1].body["messages"][1]["content"]
    assert [b["type"] for b in kept] == ["server_tool_use", "web_search_tool_result", "text"]
    assert kept[1]["content"] == SEARCH_RESULTS
    result = messages[-1]
    assert result["result"] == "The release came out yesterday."
    assert result["total_cost_usd"] == pytest.approx(
        0.01 + cost_usd("claude-sonnet-5-5", {"input_tokens": 1000, "output_tokens": 50})
    )
    assert result["modelUsage"]["claude-sonnet-5-5"]["webSearchRequests"] == 1


async def test_web_search_is_not_offered_unless_allowed(fake_api, make_engine, run_cli):
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "hi"}]}, search_turn()]})
    engine = make_engine(server)
    await collect(engine, "hi")
    assert not any(t.get("type") == "web_search_20250305" for t in server.requests[0].body["tools"])
    done = run_cli("-p", "search", "--verbose", "--allowedTools", "WebSearch", server=server)
    assert done.returncode == 0, done.stderr
    assert "● web_search(" in done.stderr and "⎿ 1 search result" in done.stderr


async def test_a_search_turn_the_api_paused_is_sent_back_as_is_and_continued(fake_api, make_engine):
    paused = {
        "content": [
            {"type": "text", "text": "Let me look that up."},
            {"type": "server_tool_use", "id": "srvtoolu_1", "input": {"query": "agentcli release"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": SEARCH_RESULTS},
        ],
        "stop_reason": "pause_turn",
        "usage": {"input_tokens": 1000, "output_tokens": 40, "web_search_requests": 1},
    }
    continued = {
        "content": [
            {"type": "server_tool_use", "id": "srvtoolu_2", "input": {"query": "agentcli changelog"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_2", "content": SEARCH_RESULTS},
            {"type": "text", "text": "It came out yesterday."},
        ],
        "usage": {"input_tokens": 1200, "output_tokens": 30, "web_search_requests": 1},
    }
    server = fake_api({"turns": [paused, continued]})
    engine = make_engine(server, allowed_tools=["WebSearch"])
    messages = await collect(engine, "when was the release?")

    assert len(server.requests) == 2
    history = server.requests[1].body["messages"]
    # The paused turn goes back untouched as the last message, with no user message after it: the model carries on.
    assert [m["role"] for m in history] == ["user", "assistant"]
    sent_back = history[1]["content"]
    assert [b["type"] for b in sent_back] == ["text", "server_tool_use", "web_search_tool_result"]
    assert sent_back[1] == {
        "type": "server_tool_use",
        "id": "srvtoolu_1",
        "name": "web_search",
        "input": {"query": "agentcli release"},
    }
    assert sent_back[2] == {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": SEARCH_RESULTS}
    result = messages[-1]
    assert not result["is_error"] and result["terminal_reason"] == "completed"
    assert result["result"] == "It came out yesterday."
    assert result["modelUsage"]["claude-sonnet-5-5"]["webSearchRequests"] == 2
    assert result["total_cost_usd"] == pytest.approx(
        0.02
        + cost_usd("claude-sonnet-5-5", {"input_tokens": 1000, "output_tokens": 40})
        + cost_usd("claude-sonnet-5-5", {"input_tokens": 1200, "output_tokens": 30})
    )
