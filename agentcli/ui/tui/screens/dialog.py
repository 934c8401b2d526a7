"""The look shared by the TUI's dialogs, kept with them so its CSS is parsed when a dialog first opens, not at start."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import OptionList


def dialog_css(box: str, *, border: str = "$warning", extra: str = "") -> str:
    """CSS for a dialog's box ``#box`` (the app's CSS centres every modal screen over the dimmed conversation)."""
    return f"""
    #{box} {{
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 90%;
        border: round {border};
        background: $surface;
        padding: 1 2;
    }}
    {extra}
    """


OPTIONS_CSS = "height: auto; max-height: 16; border: none; background: $surface;"


class YesNoDialog(ModalScreen[bool]):
    """A question with an option list whose "yes" option (id ``yes``) answers True; Esc answers False."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "answer(False)", show=False)]

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
