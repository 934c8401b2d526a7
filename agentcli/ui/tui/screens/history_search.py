"""HistorySearch: ctrl+r, find an earlier prompt by typing part of it."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from agentcli.ui.history import PromptHistory
from agentcli.ui.tui.screens.dialog import OPTIONS_CSS, dialog_css


class HistorySearch(ModalScreen[str | None]):
    """The result is the chosen prompt, or None."""

    DEFAULT_CSS = dialog_css(
        "history-box",
        border="$primary",
        extra=f"""
    #history-options {{ {OPTIONS_CSS} }}
    #history-query {{ margin: 1 0 0 0; }}
    """,
    )

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", show=False),
        Binding("down,ctrl+r", "move(1)", show=False),
        Binding("up", "move(-1)", show=False),
    ]

    def __init__(self, history: PromptHistory, query: str = "") -> None:
        super().__init__()
        self.prompt_history = history
        self.initial = query

    def compose(self) -> ComposeResult:
        with Vertical(id="history-box"):
            yield Input(self.initial, placeholder="Search prompt history", id="history-query")
            yield OptionList(id="history-options")

    def on_mount(self) -> None:
        self._fill(self.initial)
        self.query_one(Input).focus()

    def _fill(self, needle: str) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(
            Option(" ".join(text.split())[:200], id=str(i)) for i, text in enumerate(self.prompt_history.search(needle))
        )
        if options.option_count:
            options.highlighted = 0

    @on(Input.Changed, "#history-query")
    def _changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(Input.Submitted, "#history-query")
    def _submitted(self) -> None:
        self._choose()

    @on(OptionList.OptionSelected)
    def _selected(self) -> None:
        self._choose()

    def _choose(self) -> None:
        options = self.query_one(OptionList)
        found = self.prompt_history.search(self.query_one(Input).value)
        index = options.highlighted
        self.dismiss(found[index] if index is not None and index < len(found) else None)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if options.option_count:
            options.highlighted = ((options.highlighted or 0) + step) % options.option_count

    def action_cancel(self) -> None:
        self.dismiss(None)
