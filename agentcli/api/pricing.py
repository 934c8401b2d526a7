"""Dollar cost of a response, per model family.

Prices are USD per million tokens. Cache writes are the 5-minute tier (1.25x input), cache reads 0.1x input.
A model we do not know costs 0 and is reported as unpriced rather than guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PER_MILLION = 1_000_000
WEB_SEARCH_USD = 0.01
"""Per server-side web search ($10 per thousand)."""


@dataclass(frozen=True, slots=True)
class Price:
    input: float
    output: float

    @property
    def cache_write(self) -> float:
        return self.input * 1.25

    @property
    def cache_read(self) -> float:
        return self.input * 0.1


# Ordered: the first family whose marker appears in the model id wins. Older Opus 3/4.0/4.1 were priced higher.
_FAMILIES: tuple[tuple[str, Price], ...] = (
    ("opus-4-1", Price(15.0, 75.0)),
    ("opus-4-0", Price(15.0, 75.0)),
    ("opus-4-2025", Price(15.0, 75.0)),
    ("claude-3-opus", Price(15.0, 75.0)),
    ("opus", Price(5.0, 25.0)),
    ("sonnet", Price(3.0, 15.0)),
    ("haiku-3-5", Price(0.8, 4.0)),
    ("3-5-haiku", Price(0.8, 4.0)),
    ("claude-3-haiku", Price(0.25, 1.25)),
    ("haiku", Price(1.0, 5.0)),
)


def price_for(model: str) -> Price | None:
    """The price table entry for ``model``, or None when it is not a model we can price."""
    lowered = model.lower()
    for marker, price in _FAMILIES:
        if marker in lowered:
            return price
    return None


def web_searches(usage: dict[str, Any]) -> int:
    server = usage.get("server_tool_use")
    return int(server.get("web_search_requests") or 0) if isinstance(server, dict) else 0


def cost_usd(model: str, usage: dict[str, Any]) -> float | None:
    """Cost of one response's ``usage`` (tokens and server-side web searches; a counter the API left out or sent
    as null counts 0); None for an unknown model."""
    price = price_for(model)
    if price is None:
        return None
    return (
        web_searches(usage) * WEB_SEARCH_USD
        + (
            (usage.get("input_tokens") or 0) * price.input
            + (usage.get("output_tokens") or 0) * price.output
            + (usage.get("cache_creation_input_tokens") or 0) * price.cache_write
            + (usage.get("cache_read_input_tokens") or 0) * price.cache_read
        )
        / PER_MILLION
    )


CONTEXT_WINDOW = 200_000
