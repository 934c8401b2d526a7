"""TranscriptScreen (ctrl+o): everything the agent did in detail, still following the live turn.

It replays the app's message log into a verbose :class:`Conversation` when it opens, then receives every new
message as it happens, so streaming text and running tools keep moving while it is open.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from agentcli.ui.tui.widgets.conversation import Conversation


class TranscriptScreen(Screen[None]):
    """The detailed transcript; ctrl+o or q returns to the conversation."""

    DEFAULT_CSS = """
    #transcript {
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
        scrollbar-gutter: stable;
    }
    #transcript-title, #transcript-help {
        height: 1;
        padding: 0 1;
        background: $panel;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "app.toggle_transcript", "Back", show=False),
    ]

    def __init__(self, log: list[dict[str, Any]], cwd: Path | None = None) -> None:
        super().__init__()
        self._log = log
        self._replayed = False
        self.cwd = cwd

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("Detailed transcript", "bold"), id="transcript-title")
        yield Conversation(verbose=True, cwd=self.cwd, id="transcript")
        yield Static(
            Content.styled("ctrl+o or q to return · esc to interrupt · ↑↓ PgUp PgDn to scroll", "$text-muted"),
            id="transcript-help",
        )

    @property
    def conversation(self) -> Conversation:
        return self.query_one("#transcript", Conversation)

    def on_mount(self) -> None:
        # The log is read now, not when the screen was made: messages that arrived in between are in it.
        conversation = self.conversation
        for message in self._log:
            conversation.handle(message)
        self._replayed = True
        conversation.can_focus = True
        conversation.focus()

    def handle(self, message: dict[str, Any]) -> None:
        """A new message from the running turn (before the replay, the replay will include it)."""
        if self._replayed:
            self.conversation.handle(message)
