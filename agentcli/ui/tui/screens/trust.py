"""TrustScreen: project hooks run commands from the repository, so they need the user's trust first."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agentcli.ui.tui.screens.dialog import OPTIONS_CSS, YesNoDialog, dialog_css


class TrustScreen(YesNoDialog):
    """True: trust the folder (remembered); False: go on without the project's hooks."""

    DEFAULT_CSS = dialog_css(
        "trust-box",
        extra=f"""
    #trust-box > Static {{ margin: 0 0 1 0; }}
    #trust-options {{ {OPTIONS_CSS} }}
    """,
    )

    def __init__(self, folder: Path, hook_count: int) -> None:
        super().__init__()
        self.folder = folder
        self.hook_count = hook_count

    def compose(self) -> ComposeResult:
        with Vertical(id="trust-box"):
            yield Static(Content.styled("Do you trust this folder?", "bold $warning"))
            yield Static(
                Content(
                    f"{self.folder} has {self.hook_count} hook(s) in .agentcli/settings.json. Hooks run shell "
                    "commands automatically while agentcli works. Only trust folders whose settings you have read."
                )
            )
            yield OptionList(
                Option("Yes, trust this folder and run its hooks", id="yes"),
                Option("No, continue without the project's hooks", id="no"),
                id="trust-options",
            )
