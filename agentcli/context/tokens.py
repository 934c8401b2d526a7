"""Token accounting without extra requests: the last response's exact count plus an estimate for what came since.

The estimate walks content blocks instead of serialising them (a JSON dump of a long history per turn costs
milliseconds); about four characters a token for prose, which errs on the high side for code and JSON.
"""

from __future__ import annotations

import json
import re
from typing import Any

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1_600
"""What an image block costs, roughly (a 1,092×1,092 image is about 1,600 tokens)."""
MESSAGE_OVERHEAD_TOKENS = 4

DEFAULT_CONTEXT_WINDOW = 200_000
LARGE_CONTEXT_WINDOW = 1_000_000
_LARGE_SUFFIX = re.compile(r"\[1m\]$", re.IGNORECASE)


def context_window(model: str, override: int | None = None) -> int:
    """The model's context window in tokens: the settings' override, else 1M for ``[1m]`` variants, else 200k.

    Every current Claude model reads 200k tokens by default; the large window is opted into per request.
    """
    if override:
        return override
    return LARGE_CONTEXT_WINDOW if _LARGE_SUFFIX.search(model) else DEFAULT_CONTEXT_WINDOW


def api_model_id(model: str) -> str:
    """The id the API knows: ``claude-sonnet-5-5[1m]`` is sent as ``claude-sonnet-5-5`` (with the beta header)."""
    return _LARGE_SUFFIX.sub("", model)


def wants_large_context(model: str) -> bool:
    return bool(_LARGE_SUFFIX.search(model))


def estimate_text(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def estimate_block(block: Any) -> int:
    if isinstance(block, str):
        return estimate_text(block)
    if not isinstance(block, dict):
        return 0
    kind = block.get("type")
    if kind == "text":
        return estimate_text(str(block.get("text", "")))
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, list):
            return 8 + sum(estimate_block(item) for item in content)
        return 8 + estimate_text(str(content or ""))
    if kind == "tool_use":
        return 8 + estimate_text(str(block.get("name", ""))) + estimate_text(json.dumps(block.get("input") or {}))
    if kind == "thinking":
        return estimate_text(str(block.get("thinking", "")))
    if kind == "redacted_thinking":
        return estimate_text(str(block.get("data", "")))
    if kind in ("image", "document"):
        return IMAGE_TOKENS
    return estimate_text(json.dumps(block, default=str))


def estimate_message(message: dict[str, Any]) -> int:
    content = message.get("content")
    if isinstance(content, str):
        return MESSAGE_OVERHEAD_TOKENS + estimate_text(content)
    if isinstance(content, list):
        return MESSAGE_OVERHEAD_TOKENS + sum(estimate_block(block) for block in content)
    return MESSAGE_OVERHEAD_TOKENS


def estimate_tools(tools: list[dict[str, Any]]) -> int:
    return estimate_text(json.dumps(tools)) if tools else 0


def estimate_system(system: str | list[dict[str, Any]] | None) -> int:
    if not system:
        return 0
    if isinstance(system, str):
        return estimate_text(system)
    return sum(estimate_block(block) for block in system)


def usage_context_tokens(usage: dict[str, Any]) -> int:
    """What a response says the context held: everything read (cached or not) plus what was written."""
    return sum(
        int(usage.get(key) or 0)
        for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens")
    )
