"""MCP tools as agentcli tools: ``mcp__<server>__<tool>`` with the server's own input schema.

Permission rules, PreToolUse and PostToolUse hooks see them like any other tool. The server validates the
arguments; here they only have to be a JSON object. What a server says about a tool (``readOnlyHint``, its name,
its description) is its own claim: it may let calls run side by side, but it never lets one run without the
permission a tool that changes things needs (in plan mode too).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict

from agentcli.mcp.connection import McpConnection, ServerUnavailable
from agentcli.tools.base import Tool, ToolCall, ToolFailure, ToolOutput

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
MAX_TOOL_NAME = 64


class McpArguments(BaseModel):
    """Whatever object the model sends; the server checks it against its schema."""

    model_config = ConfigDict(extra="allow")


def normalize_name(name: str) -> str:
    """A server or tool name as it may appear in an API tool name (Claude Code's rule: other characters → ``_``)."""
    return _UNSAFE.sub("_", name)


def tool_name(server: str, tool: str) -> str:
    return f"mcp__{normalize_name(server)}__{normalize_name(tool)}"[:MAX_TOOL_NAME]


class McpTool(Tool):
    """One tool of one server."""

    input_model = McpArguments

    def __init__(self, connection: McpConnection, definition: Any) -> None:
        self.connection = connection
        self.remote_name: str = definition.name
        self.name = tool_name(connection.name, definition.name)  # type: ignore[misc]
        self.description = definition.description or definition.title or definition.name  # type: ignore[misc]
        self._schema = dict(definition.input_schema or {"type": "object", "properties": {}})
        self._schema.setdefault("type", "object")
        annotations = definition.annotations
        self.claims_read_only = bool(annotations and annotations.read_only_hint)
        """The server's ``readOnlyHint``: shown, and used to run calls side by side; never a permission."""

    def is_read_only(self, tool_input: Any) -> bool:
        return False  # a server's claim is not agentcli's judgement: every call is judged as one that may write

    def is_concurrency_safe(self, tool_input: Any) -> bool:
        return self.claims_read_only

    def api_schema(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": self._schema}

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        arguments = tool_input.model_dump()
        try:
            result = await self.connection.call_tool(self.remote_name, arguments)
        except ServerUnavailable as exc:
            raise ToolFailure(str(exc)) from None
        except Exception as exc:
            raise ToolFailure(f"MCP server {self.connection.name}: {type(exc).__name__}: {exc}") from None
        content = result_content(result.content)
        structured: dict[str, Any] = {"server": self.connection.name, "tool": self.remote_name}
        if result.structured_content is not None:
            structured["structuredContent"] = result.structured_content
        return ToolOutput(content or "(no content)", is_error=bool(result.is_error), structured=structured)


def result_content(blocks: list[Any]) -> str | list[dict[str, Any]]:
    """MCP content blocks as tool_result content: text stays text, images become image blocks, the rest JSON."""
    out: list[dict[str, Any]] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            out.append({"type": "text", "text": block.text})
        elif kind == "image" and block.mime_type in ("image/png", "image/jpeg", "image/gif", "image/webp"):
            out.append(
                {"type": "image", "source": {"type": "base64", "media_type": block.mime_type, "data": block.data}}
            )
        elif kind == "resource" and getattr(block.resource, "text", None) is not None:
            out.append({"type": "text", "text": block.resource.text})
        else:
            out.append({"type": "text", "text": json.dumps(block.model_dump(mode="json", exclude_none=True))})
    if all(item["type"] == "text" for item in out):
        return "\n".join(item["text"] for item in out)
    return out
