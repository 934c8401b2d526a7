"""ResumePicker: choose one of this folder's earlier sessions to continue (``agentcli --resume``)."""

from __future__ import annotations

import time
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agentcli.ui.tui.screens.dialog import OPTIONS_CSS, dialog_css


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


class ResumePicker(ModalScreen[str | None]):
    """The result is the chosen session id, or None (start a new session, or stay in this one)."""

    DEFAULT_CSS = dialog_css(
        "resume-box",
        border="$primary",
        extra=f"""
    #resume-options {{ {OPTIONS_CSS} }}
    """,
    )

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "New session", show=False)]

    def __init__(self, sessions: list[Any], *, cancel_label: str = "Esc for a new session") -> None:
        super().__init__()
        self.sessions = sessions
        self.cancel_label = cancel_label

    def compose(self) -> ComposeResult:
        now = time.time()
        options = []
        for info in self.sessions:
            prompt = " ".join((info.first_prompt or "(no prompt)").split())[:70]
            label = Content.assemble(
                (f"{_age(now - info.last_activity):>9}  ", "$text-muted"),
                prompt,
                (f"  · {info.message_count} messages", "$text-muted"),
            )
            if info.git_branch:
                label = label + Content.styled(f" · {info.git_branch}", "$text-muted")
            options.append(Option(label, id=info.session_id))
        with Vertical(id="resume-box"):
            yield Static(Content.styled("Resume a session", "bold"), id="resume-title")
            if options:
                yield OptionList(*options, id="resume-options")
            else:
                yield Static("No earlier sessions in this folder.")
            yield Static(Content.styled(f"Enter to resume · {self.cancel_label}", "$text-muted"))

    def on_mount(self) -> None:
        for option_list in self.query(OptionList):
            option_list.focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
