"""Token usage and dollar cost of a session, per model and in total."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentcli.api.accumulate import USAGE_KEYS, empty_usage
from agentcli.api.pricing import CONTEXT_WINDOW, cost_usd, web_searches


@dataclass
class ModelUsage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    web_search_requests: int = 0
    cost_usd: float = 0.0
    priced: bool = True

    def sdk(self) -> dict[str, Any]:
        """The ``modelUsage`` entry of a result message."""
        return {
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "cacheReadInputTokens": self.cache_read_input_tokens,
            "cacheCreationInputTokens": self.cache_creation_input_tokens,
            "webSearchRequests": self.web_search_requests,
            "costUSD": self.cost_usd,
            "contextWindow": CONTEXT_WINDOW,
        }


@dataclass
class UsageTracker:
    """Sums every response's usage (message_start + message_delta) over a session."""

    total: dict[str, int] = field(default_factory=empty_usage)
    by_model: dict[str, ModelUsage] = field(default_factory=dict)
    cost_usd: float = 0.0

    def add(self, model: str, usage: dict[str, Any]) -> None:
        counts = {key: int(usage.get(key) or 0) for key in USAGE_KEYS}
        for key, value in counts.items():
            self.total[key] += value
        entry = self.by_model.setdefault(model, ModelUsage())
        entry.input_tokens += counts["input_tokens"]
        entry.output_tokens += counts["output_tokens"]
        entry.cache_read_input_tokens += counts["cache_read_input_tokens"]
        entry.cache_creation_input_tokens += counts["cache_creation_input_tokens"]
        entry.web_search_requests += web_searches(usage)
        cost = cost_usd(model, usage)
        if cost is None:
            entry.priced = False
        else:
            entry.cost_usd += cost
            self.cost_usd += cost

    def unpriced(self) -> list[str]:
        """Models we could not price (their cost counts as 0)."""
        return [model for model, entry in self.by_model.items() if not entry.priced]
