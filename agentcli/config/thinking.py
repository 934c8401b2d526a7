"""Extended thinking: which ``thinking`` parameter requests carry, from flags, environment and settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DEFAULT_BUDGET = 31_999
"""The budget when thinking is switched on without one (``--thinking enabled``, ``alwaysThinkingEnabled``)."""
MIN_BUDGET = 1_024


def thinking_param(
    mode: str | None, budget: int | None, env: Mapping[str, str], always_enabled: bool | None
) -> dict[str, Any] | None:
    """The request's ``thinking`` value, or None for none.

    The flags win (``--thinking``, then ``--max-thinking-tokens``), then ``MAX_THINKING_TOKENS``, then the
    ``alwaysThinkingEnabled`` setting. A budget of 0 turns thinking off; a small one is raised to the API's minimum.
    """
    if mode == "disabled":
        return None
    if mode == "adaptive":
        return {"type": "adaptive"}
    if budget is None:
        raw = env.get("MAX_THINKING_TOKENS", "").strip()
        if raw.isdigit():
            budget = int(raw)
    if budget is None and (mode == "enabled" or always_enabled):
        budget = DEFAULT_BUDGET
    if not budget:
        return None
    return {"type": "enabled", "budget_tokens": max(budget, MIN_BUDGET)}


def max_tokens_for(thinking: dict[str, Any] | None, max_tokens: int) -> int:
    """``max_tokens`` must exceed the thinking budget; leave room for the answer after it."""
    budget = int((thinking or {}).get("budget_tokens") or 0)
    return max(max_tokens, budget + 4_096) if budget else max_tokens
