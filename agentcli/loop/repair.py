"""Keep the conversation one the API accepts: every tool_use answered, no blank blocks, nothing unencodable."""

from __future__ import annotations

from typing import Any

from agentcli.tools.executor import tool_result_block


def assistant_param(content: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The history entry for an assistant response, as the API accepts it back: empty and whitespace-only text
    blocks dropped (real models send ``"\\n\\n"`` before a tool call; the API refuses them), and lone surrogates in
    text and tool input replaced by U+FFFD (they cannot be encoded for the request). The transcript keeps the
    response as it came. Returns None when nothing is left to send back.
    """
    kept = [sendable(block) for block in content if not _blank_text(block)]
    if not kept:
        return None
    return {"role": "assistant", "content": kept}


def _blank_text(block: dict[str, Any]) -> bool:
    if block.get("type") != "text":
        return False
    text = block.get("text")
    return not isinstance(text, str) or not text.strip()


def sendable(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings replaced by U+FFFD; the same object when it has none."""
    if isinstance(value, str):
        if value.isascii():
            return value
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        items = {key: sendable(item) for key, item in value.items()}
        return value if all(items[key] is value[key] for key in value) else items
    if isinstance(value, list):
        converted = [sendable(item) for item in value]
        return value if all(a is b for a, b in zip(converted, value, strict=True)) else converted
    return value


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
