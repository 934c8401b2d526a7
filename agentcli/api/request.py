"""One Messages API call, as the loop describes it (``agentcli.api.client`` re-exports it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentcli.api.cache import with_cache_breakpoints


@dataclass(slots=True)
class ModelRequest:
    """Everything one Messages API call needs. ``messages`` are never mutated: :meth:`params` copies only the few
    messages that carry a prompt-cache breakpoint."""

    model: str
    max_tokens: int
    messages: list[dict[str, Any]]
    system: str | list[dict[str, Any]] | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    thinking: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    cache: bool = True
    """Mark prompt-cache breakpoints (:mod:`agentcli.api.cache`); off for one-off requests, where writing the
    cache costs more than it could save."""
    merge_text_deltas: bool = False
    """Text deltas that arrive together may come out as one (:func:`agentcli.api.sse.iter_sse_json`); not sent."""

    def params(self) -> dict[str, Any]:
        """The request as one dict (what :mod:`agentcli.api.body` encodes, without building it)."""
        params: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens, "messages": self.messages}
        if self.system:
            params["system"] = self.system
        if self.tools:
            params["tools"] = self.tools
        if self.thinking:
            params["thinking"] = self.thinking
        if self.metadata:
            params["metadata"] = self.metadata
        return with_cache_breakpoints(params) if self.cache else params
