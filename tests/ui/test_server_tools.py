"""The API's own tools (web search, web fetch, code execution, the MCP connector): their results show like a local
tool's, in both interactive faces and when a session is resumed."""

from __future__ import annotations

from typing import Any

from agentcli.ui.server_tools import is_server_result, server_result
from agentcli.ui.summaries import result_line
from agentcli.ui.tui.widgets.tool_call import ToolCallBlock
from tests.ui.conftest import idle, screen_text, send, started, wait_for_text
from tests.ui.test_reader import Recorder


def search_turn(results: list[dict[str, Any]] | dict[str, Any]) -> dict[str, Any]:
    return {
        "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "textual tui"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": results},
            {"type": "text", "text": "Textual is a TUI framework.", "chunks": 2},
        ],
        "usage": {"web_search_requests": 1},
    }


def found(title: str, url: str) -> dict[str, Any]:
    return {"type": "web_search_result", "title": title, "url": url, "encrypted_content": "e", "page_age": None}


RESULTS = [found("Textual", "https://textual.textualize.io"), found("Rich", "https://rich.readthedocs.io")]


def test_each_kind_of_server_result_becomes_a_tool_result():
    block = {"type": "web_search_tool_result", "tool_use_id": "s1", "content": RESULTS}
    assert is_server_result(block) and not is_server_result({"type": "tool_result", "tool_use_id": "t"})
    result, structured = server_result(block)
    assert result["content"] == "Textual — https://textual.textualize.io\nRich — https://rich.readthedocs.io"
    assert not result["is_error"] and result_line("web_search", result, structured) == "Did 1 search · 2 results"

    error = {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}
    result, structured = server_result({"type": "web_search_tool_result", "tool_use_id": "s1", "content": error})
    assert (
        result["is_error"] and result_line("web_search", result, structured) == "Web search failed: max_uses_exceeded"
    )

    code = {"type": "code_execution_result", "stdout": "4\n", "stderr": "warning\n", "return_code": 1}
    result, structured = server_result({"type": "code_execution_tool_result", "tool_use_id": "c", "content": code})
    assert result == {"type": "tool_result", "content": "4\nwarning", "is_error": True} and structured["exitCode"] == 1

    fetched = {"type": "web_fetch_result", "url": "https://example.com", "content": {"type": "document"}}
    result, _ = server_result({"type": "web_fetch_tool_result", "tool_use_id": "f", "content": fetched})
    assert result["content"] == "Fetched https://example.com" and not result["is_error"]

    mcp = {"type": "mcp_tool_result", "tool_use_id": "m", "is_error": True, "content": [{"type": "text", "text": "no"}]}
    assert server_result(mcp)[0] == {
        "type": "tool_result",
        "content": [{"type": "text", "text": "no"}],
        "is_error": True,
    }


class ToolRecorder(Recorder):
    """The reader tests' face, which also writes down every call made on a tool's handle."""

    def new_tool(self, name: str, tool_use_id: str) -> Any:
        shown = self.shown

        class Handle:
            def __getattr__(self, method: str) -> Any:
                return lambda *args: shown.append((f"{name}.{method}", args))

        return Handle()


def test_a_resumed_session_shows_server_results_too():
    face = ToolRecorder()
    face.replay(
        [
            {"role": "user", "content": "search"},
            {
                "role": "assistant",
                "content": [
                    {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}},
                    {"type": "web_search_tool_result", "tool_use_id": "s1", "content": RESULTS},
                ],
            },
        ]
    )
    results = [entry[1] for entry in face.shown if entry[0] == "web_search.set_result"]
    assert len(results) == 1 and results[0][1] == {
        "results": [
            {"title": "Textual", "url": "https://textual.textualize.io"},
            {"title": "Rich", "url": "https://rich.readthedocs.io"},
        ]
    }


async def test_the_full_screen_interface_shows_a_web_search_done_with_its_results(make_app):
    """Before, the search's line had no result and kept its spinner: the API's result block was not read."""
    app, _server = make_app([search_turn(RESULTS)])
    async with started(app) as pilot:
        await send(pilot, "search")
        await idle(pilot)
        text = await wait_for_text(pilot, "web_search(textual tui)", "Did 1 search · 2 results", "Textual is a TUI")
        assert text.index("Did 1 search") < text.index("Textual is a TUI")
        (block,) = app.conversation.query(ToolCallBlock)
        assert block.state == "done" and not block.running


async def test_a_failed_web_search_shows_why_in_both_faces(make_app, start_repl):
    error = {"type": "web_search_tool_result_error", "error_code": "too_many_requests"}
    app, _server = make_app([search_turn(error)])
    async with started(app) as pilot:
        await send(pilot, "search")
        await idle(pilot)
        await wait_for_text(pilot, "Web search failed: too_many_requests")
        (block,) = app.conversation.query(ToolCallBlock)
        assert block.state == "error"
        assert "Did 1 search" not in screen_text(app)
    repl = start_repl([search_turn(error)])
    await repl.send("search")
    assert "● web_search(textual tui)\n  ⎿  Web search failed: too_many_requests" in repl.output


async def test_plain_shows_the_search_like_a_tool_call(start_repl):
    repl = start_repl([search_turn(RESULTS)])
    await repl.send("search")
    assert "● web_search(textual tui)\n  ⎿  Did 1 search · 2 results" in repl.output
    assert "Textual is a TUI framework." in repl.output
