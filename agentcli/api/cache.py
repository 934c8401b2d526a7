"""Prompt-cache breakpoints: where a request marks ``cache_control`` so the next one can read what it wrote.

A request is read by the API as tools, then system, then messages; a breakpoint caches everything before it. We
mark the last tool, the system prompt, the last message and the message that ended the previous request (so the
prefix that request cached is read back even when a turn added many blocks): at most
:data:`MAX_BREAKPOINTS`. The marks go on copies; the history itself is never changed, so every request repeats the
previous one byte for byte except for where the marks sit.
"""

from __future__ import annotations

from typing import Any

MAX_BREAKPOINTS = 4
"""The API refuses a request with more blocks carrying ``cache_control``."""
EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
_MARKABLE = frozenset({"text", "image", "document", "tool_result", "tool_use", "search_result"})
"""Block types that may carry ``cache_control`` (thinking blocks may not)."""

Message = dict[str, Any]


def with_cache_breakpoints(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with breakpoints added where they help, within the API's limit; the input is not modified."""
    out = dict(params)
    budget = MAX_BREAKPOINTS - _existing(params)
    messages: list[Message] = list(params.get("messages") or [])
    targets = _message_targets(messages)
    if targets and budget > 0:
        index = targets[0]
        marked = _mark_message(messages[index])
        if marked is not None:
            messages[index] = marked
            budget -= 1
    system = params.get("system")
    if system and budget > 0:
        blocks = [{"type": "text", "text": system}] if isinstance(system, str) else list(system)
        if blocks and not any("cache_control" in block for block in blocks):
            blocks[-1] = {**blocks[-1], "cache_control": dict(EPHEMERAL)}
            out["system"] = blocks
            budget -= 1
    tools = params.get("tools")
    if tools and budget > 0 and not any("cache_control" in tool for tool in tools):
        out["tools"] = [*tools[:-1], {**tools[-1], "cache_control": dict(EPHEMERAL)}]
        budget -= 1
    if len(targets) > 1 and budget > 0:
        index = targets[1]
        marked = _mark_message(messages[index])
        if marked is not None:
            messages[index] = marked
    if "messages" in params:
        out["messages"] = messages
    return out


def _message_targets(messages: list[Message]) -> list[int]:
    """The last message, then the last user message before it (where the previous request ended)."""
    if not messages:
        return []
    last = len(messages) - 1
    for index in range(last - 1, -1, -1):
        if messages[index].get("role") == "user":
            return [last, index]
    return [last]


def _mark_message(message: Message) -> Message | None:
    """A copy of ``message`` whose last markable block carries a breakpoint; None when no block can (or one
    already does)."""
    content = message.get("content")
    if isinstance(content, str):
        return (
            {**message, "content": [{"type": "text", "text": content, "cache_control": dict(EPHEMERAL)}]}
            if content
            else None
        )
    if not isinstance(content, list):
        return None
    for index in range(len(content) - 1, -1, -1):
        block = content[index]
        if not isinstance(block, dict):
            continue
        if "cache_control" in block:
            return None
        if block.get("type") in _MARKABLE and not (block.get("type") == "text" and not block.get("text")):
            blocks = list(content)
            blocks[index] = {**block, "cache_control": dict(EPHEMERAL)}
            return {**message, "content": blocks}
    return None


def _existing(params: dict[str, Any]) -> int:
    """Breakpoints the caller placed itself (they count against the limit)."""
    count = 0
    system = params.get("system")
    for block in system if isinstance(system, list) else []:
        count += isinstance(block, dict) and "cache_control" in block
    for tool in params.get("tools") or []:
        count += isinstance(tool, dict) and "cache_control" in tool
    for message in params.get("messages") or []:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            count += isinstance(block, dict) and "cache_control" in block
    return count


def without_cache_control(value: Any) -> Any:
    """``value`` (a request or part of one) without its ``cache_control`` markers, as a new object: what the
    history held before :func:`with_cache_breakpoints` marked it."""
    if isinstance(value, dict):
        return {key: without_cache_control(item) for key, item in value.items() if key != "cache_control"}
    if isinstance(value, list):
        return [without_cache_control(item) for item in value]
    return value
