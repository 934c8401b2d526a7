"""PermissionScreen: ask whether a tool call may run (once, for this session, or not, with a reason).

The call is shown as people review it: a coloured diff for an edit, the file (highlighted) for a new file, the whole
command for Bash. The preview is the only part that gives way: it scrolls, and the choices stay on screen at any
terminal size down to 60×15.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from agentcli.tools.permissions import PermissionAnswer, PermissionRequest
from agentcli.ui.previews import Preview, call_preview
from agentcli.ui.summaries import key_input
from agentcli.ui.tui.screens.dialog import OPTIONS_CSS, dialog_css

COMPACT_HEIGHT = 24
"""Below this many rows the dialog drops its padding and margins."""


def preview_content(preview: Preview) -> Content:
    """The preview's lines, coloured: + green and - red for a diff, syntax colours for a file."""
    if preview.kind == "diff":
        styled = []
        for line in preview.lines:
            style = (
                "$success"
                if line.startswith("+")
                else "$error"
                if line.startswith("-")
                else "$accent"
                if line.startswith("@@")
                else "$text-muted"
            )
            styled.append(Content.styled(line, style))
        return Content("\n").join(styled)
    if preview.kind == "file":
        from textual.highlight import highlight

        return highlight("\n".join(preview.lines), path=preview.path or None)
    return Content.styled("\n".join(preview.lines), "$text-muted" if preview.kind == "json" else "$text")


class PermissionScreen(ModalScreen[PermissionAnswer]):
    """The answer is the screen's result; Esc denies and stops the turn (``stop_turn``)."""

    DEFAULT_CSS = dialog_css(
        "permission-box",
        extra=f"""
    #permission-box {{ max-height: 100%; }}
    #permission-box.-compact {{ padding: 0 1; }}
    #permission-title, #permission-reason {{ text-wrap: nowrap; text-overflow: ellipsis; }}
    #permission-reason {{ margin: 0 0 1 0; }}
    #permission-box.-compact #permission-reason {{ margin: 0; }}
    #permission-preview {{ height: auto; background: $boost; margin: 0 0 1 0; }}
    #permission-box.-compact #permission-preview {{ margin: 0; }}
    #permission-options {{ {OPTIONS_CSS} }}
    """,
    )

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop", "Stop", show=False),
        Binding("1", "choose('allow_once')", show=False),
        Binding("2", "choose('allow_session')", show=False),
        Binding("3", "choose('deny')", show=False),
        Binding("pageup", "scroll_preview(-1)", show=False, priority=True),
        Binding("pagedown", "scroll_preview(1)", show=False, priority=True),
    ]

    def __init__(self, request: PermissionRequest, cwd: Path | None = None) -> None:
        super().__init__()
        self.request = request
        self.cwd = cwd
        self.stop_turn = False
        """Set when the user pressed Esc: the call is denied and the whole turn stops (as in Claude Code)."""

    def compose(self) -> ComposeResult:
        request = self.request
        grant = request.session_grant
        preview = call_preview(request.tool_name, request.tool_input, self.cwd)
        with Vertical(id="permission-box"):
            yield Static(
                Content.assemble(
                    ("Allow ", "bold"),
                    (request.tool_name, "bold $accent"),
                    (f"({key_input(request.tool_name, request.tool_input, self.cwd)})", "bold"),
                    ("?", "bold"),
                ),
                id="permission-title",
            )
            yield Static(Content.styled(request.reason, "$text-muted"), id="permission-reason")
            with VerticalScroll(id="permission-preview", can_focus=False):
                yield Static(preview_content(preview), id="permission-input")
            yield OptionList(
                *_allow_options(grant),
                Option("3. No, and tell agentcli what to do instead (esc: stop)", id="deny"),
                id="permission-options",
            )
            yield Input(placeholder="Why not? (Enter to send, empty to just deny)", id="permission-why")

    def on_mount(self) -> None:
        self.query_one("#permission-why", Input).display = False
        self.query_one(OptionList).focus()
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """Give the preview whatever height the rest of the dialog leaves (measured after the next layout)."""
        box = self.query_one("#permission-box")
        box.set_class(self.size.height < COMPACT_HEIGHT, "-compact")
        self.call_after_refresh(self._size_preview)

    def _size_preview(self) -> None:
        box = self.query_one("#permission-box")
        preview = self.query_one("#permission-preview")
        others = sum(
            child.outer_size.height + child.styles.margin.top + child.styles.margin.bottom
            for child in box.children
            if child is not preview and child.display
        )
        chrome = box.outer_size.height - box.content_size.height
        margin = preview.styles.margin.top + preview.styles.margin.bottom
        room = max(1, self.size.height - chrome - others - margin)
        if preview.styles.max_height is None or preview.styles.max_height.value != room:
            preview.styles.max_height = room

    def action_scroll_preview(self, direction: int) -> None:
        preview = self.query_one("#permission-preview", VerticalScroll)
        preview.scroll_to(y=preview.scroll_y + direction * max(1, preview.size.height - 1), animate=False)

    @on(OptionList.OptionSelected, "#permission-options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.action_choose(str(event.option.id))

    def action_choose(self, choice: str) -> None:
        why = self.query_one("#permission-why", Input)
        if choice == "deny" and not why.display:
            why.display = True
            why.focus()
            self._fit()
            return
        if choice == "deny":
            self.dismiss(PermissionAnswer("deny", why.value.strip()))
        elif choice == "allow_once" or (choice == "allow_session" and self.request.session_grant is not None):
            self.dismiss(PermissionAnswer(choice))  # type: ignore[arg-type]

    @on(Input.Submitted, "#permission-why")
    def _reason(self, event: Input.Submitted) -> None:
        self.dismiss(PermissionAnswer("deny", event.value.strip()))

    def action_stop(self) -> None:
        self.stop_turn = True
        self.dismiss(PermissionAnswer("deny", "The user stopped the turn."))


def _allow_options(grant: str | None) -> list[Option]:
    """Allow once, and (where the call can be granted at all) allow for the session, naming the grant in full."""
    once = Option("1. Yes, allow once", id="allow_once")
    if grant is None:
        return [once]
    return [once, Option(Content(f"2. Yes, and allow {grant} for this session"), id="allow_session")]
