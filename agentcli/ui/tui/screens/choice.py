"""ChoicePicker: one question, a list of answers, Enter to pick, Esc to leave it (``/rewind``'s two steps, the
session picker, yes/no questions)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agentcli.ui.tui.screens.dialog import OPTIONS_CSS, dialog_css


class ChoicePicker(ModalScreen[str | None]):
    """The result is the chosen answer's id, or None when the user pressed Esc."""

    DEFAULT_CSS = dialog_css(
        "choice-box",
        border="$primary",
        extra=f"""
    #choice-options {{ {OPTIONS_CSS} }}
    """,
    )

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(
        self,
        title: str,
        answers: list[tuple[str, str | Content]],
        hint: str,
        *,
        highlighted: int = 0,
        empty: str = "Nothing to choose from.",
    ) -> None:
        super().__init__()
        self.title_text = title
        self.answers = answers
        self.hint = hint
        self.start_at = highlighted
        self.empty = empty

    def compose(self) -> ComposeResult:
        with Vertical(id="choice-box"):
            yield Static(Content.styled(self.title_text, "bold"), id="choice-title")
            if self.answers:
                options = (
                    Option(Content(label) if isinstance(label, str) else label, id=key) for key, label in self.answers
                )
                yield OptionList(*options, id="choice-options")
            else:
                yield Static(self.empty)
            yield Static(Content.styled(self.hint, "$text-muted"))

    def on_mount(self) -> None:
        for options in self.query(OptionList):
            options.highlighted = min(self.start_at, max(0, options.option_count - 1))
            options.focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
