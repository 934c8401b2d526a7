"""Crude token estimates (about four characters a token), so usage numbers move with request and reply size."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agentcli.testing.scenario import RedactedThinkingSpec, TextSpec, ThinkingSpec, ToolUseSpec, Turn


def estimate_input_tokens(body: Mapping[str, Any]) -> int:
    """Size of what the model would read: messages, system prompt and tool definitions."""
    relevant = {key: body.get(key) for key in ("messages", "system", "tools")}
    return len(json.dumps(relevant, ensure_ascii=False, default=str)) // 4


def too_long_message(body: Mapping[str, Any], context_window: int | None) -> str | None:
    """The real API's 400 message when the request's estimated size exceeds ``context_window``, else None."""
    if context_window is None:
        return None
    tokens = estimate_input_tokens(body)
    return f"prompt is too long: {tokens} tokens > {context_window} maximum" if tokens > context_window else None


def estimate_output_tokens(turn: Turn) -> int:
    """Size of the scripted reply; never zero, as the real API always bills at least one token."""
    chars = 0
    for block in turn.content:
        if isinstance(block, TextSpec):
            chars += len(block.text)
        elif isinstance(block, ThinkingSpec):
            chars += len(block.thinking)
        elif isinstance(block, RedactedThinkingSpec):
            chars += len(block.data)
        elif isinstance(block, ToolUseSpec):
            chars += len(block.name) + len(block.input_json())
    return max(1, chars // 4)
