"""What fills the context window, by part: one calculation for ``/context`` in every face, the control protocol's
``get_context_usage`` and the status bar's percentage."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentcli.context.tokens import estimate_system, estimate_text, estimate_tools


@dataclass(frozen=True)
class ContextUsage:
    model: str
    window: int
    system: int
    tools: int
    memory: int
    """Memory files sent as user context (inside the messages); 0 when they are part of the system prompt."""
    messages: int
    total: int
    auto_compact: int
    auto_compact_enabled: bool

    @property
    def free(self) -> int:
        return max(0, self.window - self.total)

    @property
    def percent(self) -> float:
        return 100 * self.total / self.window if self.window else 0.0


def context_usage(engine: Any) -> ContextUsage:
    """The session's numbers: exact up to the last response, estimated for what came after."""
    config = engine.config
    system = estimate_system(config.system_prompt)
    tools = estimate_tools(config.registry.schemas())
    total = engine.conversation.context_tokens(system + tools)
    user_context = getattr(config, "user_context", None)
    memory = estimate_text(user_context) if user_context else 0
    compactor = engine.compactor
    limits = compactor.limits(config.model, config.max_tokens)
    return ContextUsage(
        model=config.model,
        window=limits.window,
        system=system,
        tools=tools,
        memory=memory,
        messages=max(0, total - system - tools - memory),
        total=total,
        auto_compact=limits.auto_compact,
        auto_compact_enabled=compactor.auto_enabled and not compactor.broken,
    )
