"""Reading requests and histories in tests: what was typed, without what the client adds on every session.

The client puts the user context (environment, memory files) at the head of the first user message and moves
``cache_control`` markers from request to request; tests about something else compare what is left.
"""

from __future__ import annotations

from typing import Any

from agentcli.api.cache import without_cache_control
from agentcli.context.user_context import is_user_context_block


def typed(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` in a normal form for comparing: without the user-context block and cache markers, and a user
    message of a single text block read as that text (the API treats the two forms alike; the client turns text
    into a block to mark it). Apply it to both sides of a comparison."""
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = [without_cache_control(b) for b in content if not is_user_context_block(b)]
            if message.get("role") == "user" and len(content) == 1 and content[0].get("type") == "text":
                content = content[0]["text"]
        out.append({**message, "content": content})
    return out


def system_text(body: dict[str, Any]) -> str:
    """A request's system prompt as text (the client sends it as blocks, to mark it for the prompt cache)."""
    system = body.get("system")
    return system if isinstance(system, str) else "".join(block["text"] for block in system or [])


def first_text(message: dict[str, Any]) -> str:
    """The text a message opens with, after the user-context block the client may have put at its head."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return next(b.get("text", "") for b in content if not is_user_context_block(b))


def sent_text(message: dict[str, Any]) -> str:
    """All the text of a message as sent, without the user-context block."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in content if not is_user_context_block(b))


def tool_result(request: Any, tool_id: str) -> dict[str, Any]:
    """The tool_result block answering ``tool_id`` in a recorded request."""
    for message in request.body["messages"]:
        if message["role"] == "user" and isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_result" and block["tool_use_id"] == tool_id:
                    return block
    raise AssertionError(f"no tool_result for {tool_id}")
