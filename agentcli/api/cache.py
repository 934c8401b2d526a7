"""Prompt-cache breakpoints: where a request marks ``cache_control`` so the next one can read what it wrote.

A request is read by the API as tools, then system, then messages; a breakpoint caches everything before it. We
mark the last tool, the system prompt, the last message and the message that ended the previous request (so the
prefix that request cached is read back even when a turn added many blocks): at most
:data:`MAX_BREAKPOINTS`. The marks go on copies; the history itself is never changed, so every request repeats the
previous one byte for byte except for where the marks sit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_BREAKPOINTS = 4
"""The API refuses a request with more blocks carrying ``cache_control``."""
EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
_MARKABLE = frozenset({"text", "image", "document", "tool_result", "tool_use", "search_result"})
"""Block types that may carry ``cache_control`` (thinking blocks may not)."""

Message = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Breakpoints:
    """Where one request's breakpoints go, decided without copying anything."""

    messages: tuple[int, ...]
    """Indices of the messages that carry one (see :func:`marked_message`)."""
    system: bool
    tools: bool
    """The system prompt's last block / the last tool carries one."""


def plan_breakpoints(
    messages: list[Message], system: Any, tools: list[dict[str, Any]] | None, existing: int
) -> Breakpoints:
    """The breakpoints to add, within the API's limit; ``existing`` counts those the caller placed itself."""
    budget = MAX_BREAKPOINTS - existing
    targets = _message_targets(messages)
    marked: list[int] = []
    mark_system = mark_tools = False
    if targets and budget > 0 and _mark_position(messages[targets[0]]) is not None:
        marked.append(targets[0])
        budget -= 1
    if system and budget > 0 and (isinstance(system, str) or not any("cache_control" in block for block in system)):
        mark_system = True
        budget -= 1
    if tools and budget > 0 and not any("cache_control" in tool for tool in tools):
        mark_tools = True
        budget -= 1
    if len(targets) > 1 and budget > 0 and _mark_position(messages[targets[1]]) is not None:
        marked.append(targets[1])
    return Breakpoints(tuple(marked), mark_system, mark_tools)


def with_cache_breakpoints(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with breakpoints added where they help, within the API's limit; the input is not modified."""
    out = dict(params)
    messages: list[Message] = list(params.get("messages") or [])
    system: Any = params.get("system")
    tools: Any = params.get("tools")
    plan = plan_breakpoints(messages, system, tools, _existing(params))
    for index in plan.messages:
        messages[index] = marked_message(messages[index])
    if plan.system:
        out["system"] = marked_system(system)
    if plan.tools:
        out["tools"] = [*tools[:-1], marked_tool(tools[-1])]
    if "messages" in params:
        out["messages"] = messages
    return out


def marked_system(system: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": system}] if isinstance(system, str) else list(system)
    blocks[-1] = {**blocks[-1], "cache_control": dict(EPHEMERAL)}
    return blocks


def marked_tool(tool: dict[str, Any]) -> dict[str, Any]:
    return {**tool, "cache_control": dict(EPHEMERAL)}


def _message_targets(messages: list[Message]) -> list[int]:
    """The last message, then the last user message before it (where the previous request ended)."""
    if not messages:
        return []
    last = len(messages) - 1
    for index in range(last - 1, -1, -1):
        if messages[index].get("role") == "user":
            return [last, index]
    return [last]


def _mark_position(message: Message) -> int | None:
    """The index of the block that takes the breakpoint (-1: text content, made one text block); None when no
    block can take one, or one already has it."""
    content = message.get("content")
    if isinstance(content, str):
        return -1 if content else None
    if not isinstance(content, list):
        return None
    for index in range(len(content) - 1, -1, -1):
        block = content[index]
        if not isinstance(block, dict):
            continue
        if "cache_control" in block:
            return None
        if block.get("type") in _MARKABLE and not (block.get("type") == "text" and not block.get("text")):
            return index
    return None


def marked_message(message: Message) -> Message:
    """A copy of ``message`` whose last markable block carries a breakpoint (only for a message the plan marks)."""
    position = _mark_position(message)
    assert position is not None, "only a markable message is marked"
    content = message["content"]
    if position < 0:
        return {**message, "content": [{"type": "text", "text": content, "cache_control": dict(EPHEMERAL)}]}
    blocks = list(content)
    blocks[position] = {**blocks[position], "cache_control": dict(EPHEMERAL)}
    return {**message, "content": blocks}


def markers_in(message: Message) -> int:
    """Breakpoints a message already carries (the caller's, counted against the limit)."""
    content = message.get("content")
    return (
        sum(isinstance(block, dict) and "cache_control" in block for block in content)
        if isinstance(content, list)
        else 0
    )


def _existing(params: dict[str, Any]) -> int:
    """Breakpoints the caller placed itself (they count against the limit)."""
    count = sum(markers_in(message) for message in params.get("messages") or [])
    return count + outside_markers(params.get("system"), params.get("tools"))


def outside_markers(system: Any, tools: list[dict[str, Any]] | None) -> int:
    """Breakpoints the caller placed on the system prompt and the tools."""
    count = 0
    for block in system if isinstance(system, list) else []:
        count += isinstance(block, dict) and "cache_control" in block
    for tool in tools or []:
        count += isinstance(tool, dict) and "cache_control" in tool
    return count


def without_cache_control(value: Any) -> Any:
    """``value`` (a request or part of one) without its ``cache_control`` markers, as a new object: what the
    history held before :func:`with_cache_breakpoints` marked it."""
    if isinstance(value, dict):
        return {key: without_cache_control(item) for key, item in value.items() if key != "cache_control"}
    if isinstance(value, list):
        return [without_cache_control(item) for item in value]
    return value
