"""StatusBar: model, permission mode, context used, session cost, and what the agent is doing right now."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from textual.content import Content
from textual.widgets import Static

from agentcli.context.tokens import context_window, usage_context_tokens
from agentcli.ui.summaries import format_elapsed

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


@dataclass
class StatusState:
    model: str = ""
    mode: str = "default"
    context_percent: float = 0.0
    cost_usd: float = 0.0
    busy_since: float | None = None
    retry_at: float | None = None
    retry_attempt: int = 0
    retry_max: int = 0
    queued: int = 0
    hint: str = ""
    starting: bool = True
    extensions: str = ""
    """MCP servers and background shells, e.g. ``MCP 1 connected · 1 failed``."""
    window_override: int | None = None
    """The ``contextWindow`` setting, so "ctx N%" is the share ``/context`` reports."""

    def read(self, message: dict[str, Any]) -> bool:
        """Take what the status line shows from one engine message; False when nothing changed."""
        if message.get("parent_tool_use_id"):
            return False  # a sub-agent's context is not the conversation's
        kind = message.get("type")
        if kind == "assistant":
            # The same count /context starts from: what the last response says the context held.
            used = usage_context_tokens((message.get("message") or {}).get("usage") or {})
            if used:
                self.context_percent = 100 * used / context_window(self.model, self.window_override)
            self.retry_at = None
        elif kind == "stream_event":
            if self.retry_at is None:
                return False
            self.retry_at = None
        elif kind == "system":
            subtype = message.get("subtype")
            if subtype == "api_retry":
                self.retry_at = time.monotonic() + (message.get("retry_delay_ms") or 0) / 1000
                self.retry_attempt = int(message.get("attempt") or 0)
                self.retry_max = int(message.get("max_retries") or 0)
            elif subtype == "compact_boundary":
                post = int((message.get("compact_metadata") or {}).get("post_tokens") or 0)
                self.context_percent = 100 * post / context_window(self.model, self.window_override)
            elif subtype == "init":
                self.model = str(message.get("model") or self.model)
                self.mode = str(message.get("permissionMode") or self.mode)
            else:
                return False
        elif kind == "result":
            self.cost_usd = float(message.get("total_cost_usd") or 0)
            self.retry_at = None
        else:
            return False
        return True


class StatusBar(Static):
    """One line at the bottom; the app updates ``state`` and calls :meth:`show`."""

    DEFAULT_CSS = """
    StatusBar { height: 1; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.state = StatusState()

    def on_mount(self) -> None:
        self.show()

    def activity(self, now: float | None = None, *, short: bool = False) -> Content:
        """The right-hand part: retry countdown, working spinner, queue, hints."""
        state = self.state
        now = time.monotonic() if now is None else now
        parts: list[Content] = []
        if state.hint:
            parts.append(Content.styled(state.hint, "$warning"))
        if state.retry_at is not None:
            wait = max(0, round(state.retry_at - now))
            parts.append(
                Content.styled(f"Retrying in {wait} s · attempt {state.retry_attempt}/{state.retry_max}", "$warning")
            )
        elif state.busy_since is not None:
            frame = SPINNER[int(now * 10) % len(SPINNER)]
            parts.append(
                Content.styled(
                    f"{frame} Working {format_elapsed(now - state.busy_since)}"
                    + ("" if short else " · esc to interrupt"),
                    "$accent",
                )
            )
        if state.queued:
            parts.append(Content.styled(f"{state.queued} queued (↑ to edit)", "$text-muted"))
        if state.starting:
            parts.append(Content.styled("starting…", "$text-muted"))
        return Content(" · ").join(parts)

    def summary(self, *, short: bool = False) -> Content:
        """The left-hand part: model, permission mode, context used, cost."""
        state = self.state
        colour = {"default": "$text-muted", "bypassPermissions": "$error"}.get(state.mode, "$accent")
        mode = Content.styled(state.mode, f"{colour} bold" if state.mode == "bypassPermissions" else colour)
        pieces = [
            Content.styled(state.model or "…", "$text-muted"),
            mode if short else mode + Content.styled(" (shift+tab)", "$text-muted 60%"),
            Content.styled(f"ctx {state.context_percent:.0f}%", "$text-muted"),
            Content.styled(f"${state.cost_usd:.4f}", "$text-muted"),
        ]
        if state.extensions and not short:
            pieces.append(
                Content.styled(state.extensions, "$warning" if "failed" in state.extensions else "$text-muted")
            )
        return Content(" · ").join(pieces)

    def show(self) -> None:
        width = self.content_size.width or 80
        left = self.summary()
        right = self.activity()
        if left.cell_length + right.cell_length + 1 > width:
            left, right = self.summary(short=True), self.activity(short=True)
        gap = max(1, width - left.cell_length - right.cell_length)
        self.update(left + Content(" " * gap) + right, layout=False)  # one line, always: no layout needed
