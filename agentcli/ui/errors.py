"""What a person can do about an error: a hint to show under the error's own words."""

from __future__ import annotations

import re

_HINTS: tuple[tuple[str, str], ...] = (
    (
        r"connection (failed|timed out)|connection error|connect(ion)? refused|name or service not known",
        "Check the network and ANTHROPIC_BASE_URL; agentcli retried before giving up.",
    ),
    (
        r"\b401\b|authentication|invalid x-api-key|api key",
        "Check ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) for this endpoint.",
    ),
    (r"\b403\b|permission_error", "The key is not allowed to use this model or endpoint."),
    (r"\b404\b|not_found|model: ", 'Check the model name (--model, ANTHROPIC_MODEL or the "model" setting).'),
    (r"\b429\b|rate.?limit", "The API's rate limit was reached; wait a moment and send the prompt again."),
    (r"\b529\b|overloaded", "The API is overloaded; try again shortly, or set --fallback-model."),
    (r"too long for the model|prompt is too long", "Run /compact, or start a new session with /clear."),
    (r"stream (stalled|ended)|idle", "The stream stopped; send the prompt again (AGENTCLI_STREAM_IDLE_TIMEOUT_MS)."),
)


def error_hint(text: str) -> str:
    """A short next step for ``text`` (an API or engine error), or "" when there is nothing useful to add."""
    lowered = text.lower()
    for pattern, hint in _HINTS:
        if re.search(pattern, lowered):
            return hint
    return ""


def strip_api_prefix(text: str) -> str:
    """The error without the ``API Error: `` the engine puts before it in the conversation."""
    return text.removeprefix("API Error: ").strip()
