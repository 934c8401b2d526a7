"""PermissionScreen: ask whether a tool call may run (once, for this session, or not, with a reason)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from agentcli.tools.permissions import PermissionAnswer, PermissionRequest
from agentcli.ui.summaries import key_input
from agentcli.ui.tui.screens.dialog import OPTIONS_CSS, dialog_css

MAX_INPUT_LINES = 12


class PermissionScreen(ModalScreen[PermissionAnswer]):
    """The answer is the screen's result; Esc denies without a reason."""

    DEFAULT_CSS = dialog_css("permission-box", extra=f"""
    #permission-box > Static {{ margin: 0 0 1 0; }}
    #permission-options {{ {OPTIONS_CSS} }}
    #permission-why {{ margin: 1 0 0 0; }}
    """)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "deny", "Deny", show=False),
        Binding("1", "choose('allow_once')", show=False),
        Binding("2", "choose('allow_session')", show=False),
        Binding("3", "choose('deny')", show=False),
    ]

    def __init__(self, request: PermissionRequest, cwd: Path | None = None) -> None:
        super().__init__()
        self.request = request
        self.cwd = cwd

    def compose(self) -> ComposeResult:
        request = self.request
        detail = json.dumps(request.tool_input, indent=2, ensure_ascii=False).splitlines()
        if len(detail) > MAX_INPUT_LINES:
            detail = [*detail[:MAX_INPUT_LINES], "…"]
        always = ", ".join(request.suggestions) if request.suggestions else request.tool_name
        with Vertical(id="permission-box"):
            yield Static(Content.assemble(("Allow ", "bold"), (request.tool_name, "bold $accent"),
                                          (f"({key_input(request.tool_name, request.tool_input, self.cwd)})", "bold"),
                                          ("?", "bold")), id="permission-title")
            yield Static(Content.styled(request.reason, "$text-muted"), id="permission-reason")
            yield Static(Content.styled("\n".join(detail), "$text-muted"), id="permission-input")
            yield OptionList(
                Option("1. Yes, allow once", id="allow_once"),
                Option(f"2. Yes, and allow {always} for this session", id="allow_session"),
                Option("3. No, and tell agentcli what to do instead", id="deny"),
                id="permission-options",
            )
            yield Input(placeholder="Why not? (Enter to send, empty to just deny)", id="permission-why")

    def on_mount(self) -> None:
        self.query_one("#permission-why", Input).display = False
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected, "#permission-options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.action_choose(str(event.option.id))

    def action_choose(self, choice: str) -> None:
        why = self.query_one("#permission-why", Input)
        if choice == "deny" and not why.display:
            why.display = True
            why.focus()
            return
        if choice == "deny":
            self.dismiss(PermissionAnswer("deny", why.value.strip()))
        elif choice in ("allow_once", "allow_session"):
            self.dismiss(PermissionAnswer(choice))  # type: ignore[arg-type]

    @on(Input.Submitted, "#permission-why")
    def _reason(self, event: Input.Submitted) -> None:
        self.dismiss(PermissionAnswer("deny", event.value.strip()))

    def action_deny(self) -> None:
        self.dismiss(PermissionAnswer("deny", ""))
