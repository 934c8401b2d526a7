"""The API's server-side web search, offered to the model as the ``web_search`` server tool.

The API runs the searches, so agentcli cannot ask before each one: the tool is offered only when the permission
rules already allow ``WebSearch`` (an allow rule, or bypassPermissions). Its blocks (``server_tool_use``,
``web_search_tool_result``) stay in the conversation as the API sent them, and each search is priced.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agentcli.tools.base import Tool, ToolCall, ToolFailure, ToolInput, ToolOutput

MAX_USES = 5
SERVER_TOOL_TYPE = "web_search_20250305"


class WebSearchInput(ToolInput):
    query: str = Field(description="The search query")


class WebSearchTool(Tool):
    name = "WebSearch"
    description = "Search the web; the API runs the search and returns results with their sources."
    input_model = WebSearchInput

    def api_schema(self) -> dict[str, Any]:
        return {"type": SERVER_TOOL_TYPE, "name": "web_search", "max_uses": MAX_USES}

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        raise ToolFailure("Web search runs on the API's side; it cannot be called as a client tool.")


def offered(policy: Any) -> bool:
    """Whether the rules allow web search without asking (the only way a server-side tool can be allowed)."""
    return bool(policy.evaluate(WebSearchTool(), {"query": "search"}).behavior == "allow")
