"""MessageDialog: problems the user should know about at start (bad settings, bad theme), shown once."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from agentcli.ui.tui.screens.dialog import dialog_css


class MessageDialog(ModalScreen[None]):
    """A titled list of messages; Enter, Esc or a click dismisses it."""

    DEFAULT_CSS = dialog_css(
        "message-box",
        extra="""
    #message-hint { margin: 1 0 0 0; }
    """,
    )

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,space,q", "dismiss_dialog", "Dismiss", show=False),
    ]

    def __init__(self, title: str, messages: list[str]) -> None:
        super().__init__()
        self.title_text = title
        self.messages = messages

    def compose(self) -> ComposeResult:
        with Vertical(id="message-box"):
            yield Static(Content.styled(self.title_text, "bold $warning"), id="message-title")
            for message in self.messages:
                yield Static(Content("• ") + Content(message), classes="message-line")
            yield Static(Content.styled("Press Enter or Esc to continue", "$text-muted"), id="message-hint")

    def action_dismiss_dialog(self) -> None:
        self.dismiss(None)

    def on_click(self) -> None:
        self.dismiss(None)
