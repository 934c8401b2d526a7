"""Keep the conversation one the API accepts: every tool_use answered, no empty blocks."""

from __future__ import annotations

from typing import Any

from agentcli.tools.executor import tool_result_block


def assistant_param(content: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The history entry for an assistant response: empty text blocks dropped (the API rejects them).

    Returns None when nothing is left to send back.
    """
    kept = [block for block in content if not (block.get("type") == "text" and not block.get("text"))]
    if not kept:
        return None
    return {"role": "assistant", "content": kept}


def unanswered_tool_uses(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """tool_use blocks of the last assistant message that no following user message answers."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "assistant":
            continue
        content = message.get("content")
        if not isinstance(content, list):
            return []
        uses = [block for block in content if isinstance(block, dict) and block.get("type") == "tool_use"]
        answered: set[str] = set()
        for later in messages[index + 1 :]:
            if isinstance(later.get("content"), list):
                answered.update(
                    block.get("tool_use_id", "")
                    for block in later["content"]
                    if isinstance(block, dict) and block.get("type") == "tool_result"
                )
        return [block for block in uses if block.get("id") not in answered]
    return []


def synthetic_results(tool_uses: list[dict[str, Any]], reason: str) -> dict[str, Any] | None:
    """A user message answering each of ``tool_uses`` with an error that says why it never ran."""
    if not tool_uses:
        return None
    return {"role": "user", "content": [tool_result_block(block["id"], reason, True) for block in tool_uses]}
