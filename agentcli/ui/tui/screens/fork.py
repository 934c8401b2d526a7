"""ForkScreen: the session asked for is open in another agentcli; offer to go on in a copy of it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agentcli.ui.tui.screens.dialog import OPTIONS_CSS, YesNoDialog, dialog_css


class ForkScreen(YesNoDialog):
    """True: fork the session into a new one; False: don't start (the reason stays on screen)."""

    DEFAULT_CSS = dialog_css(
        "fork-box",
        extra=f"""
    #fork-box > Static {{ margin: 0 0 1 0; }}
    #fork-options {{ {OPTIONS_CSS} }}
    """,
    )

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical(id="fork-box"):
            yield Static(Content.styled("This session is open elsewhere", "bold $warning"))
            yield Static(Content(self.reason))
            yield OptionList(
                Option("Fork it: go on in a new session that starts with its history", id="yes"),
                Option("Don't start", id="no"),
                id="fork-options",
            )
