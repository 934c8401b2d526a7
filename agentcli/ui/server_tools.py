"""Results of the API's own tools (web search, web fetch, code execution, MCP connector) as faces show tool results.

The API runs these tools itself and puts each result in the assistant message, as a block of its own next to the
call (``web_search_tool_result`` after ``server_tool_use``). A face shows calls and results through one tool
handle, so each such block is turned into the ``tool_result`` block and structured data a local tool would give.
"""

from __future__ import annotations

import json
from typing import Any

from agentcli.ui.shapes import ContentBlock

MAX_LISTED = 20
"""The most search results named in a result's text (the line in the main view counts them all)."""


def is_server_result(block: ContentBlock) -> bool:
    """True for a result block of a tool the API ran (it names the call it answers)."""
    kind = str(block.get("type") or "")
    return kind.endswith("_tool_result") and kind != "tool_result" and bool(block.get("tool_use_id"))


def server_result(block: ContentBlock) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``tool_result`` block and the structured data for one server tool's result block."""
    kind = str(block.get("type"))
    content = block.get("content")
    if isinstance(content, dict) and str(content.get("type", "")).endswith("error"):
        code = str(content.get("error_code") or "unknown error")
        return _result(f"{_label(kind)} failed: {code}", True), {"error": code}
    if kind == "web_search_tool_result" and isinstance(content, list):
        found = [item for item in content if isinstance(item, dict) and item.get("type") == "web_search_result"]
        results = [{"title": str(item.get("title") or ""), "url": str(item.get("url") or "")} for item in found]
        lines = [f"{r['title']} — {r['url']}" if r["title"] else r["url"] for r in results[:MAX_LISTED]]
        if len(results) > MAX_LISTED:
            lines.append(f"… {len(results) - MAX_LISTED} more")
        return _result("\n".join(lines) or "No results", False), {"results": results}
    if kind == "web_fetch_tool_result" and isinstance(content, dict):
        url = str(content.get("url") or "")
        return _result(f"Fetched {url}" if url else "Fetched", False), {"url": url}
    if isinstance(content, dict) and "return_code" in content:  # code execution, in any of its kinds
        code = content.get("return_code")
        output = "\n".join(str(content.get(key) or "").rstrip("\n") for key in ("stdout", "stderr")).strip("\n")
        exit_code = code if isinstance(code, int) else 0
        return _result(output or "(No output)", exit_code != 0), {"exitCode": exit_code}
    if isinstance(content, list):  # the MCP connector: the server's content blocks, as a local MCP tool's
        return _result([item for item in content if isinstance(item, dict)], bool(block.get("is_error"))), {}
    return _result(json.dumps(content, ensure_ascii=False), bool(block.get("is_error"))), {}


def _result(content: str | list[dict[str, Any]], is_error: bool) -> dict[str, Any]:
    return {"type": "tool_result", "content": content, "is_error": is_error}


def _label(kind: str) -> str:
    """``web_search_tool_result`` → "Web search"."""
    words = kind.removesuffix("_tool_result").replace("_", " ")
    return words[:1].upper() + words[1:]
