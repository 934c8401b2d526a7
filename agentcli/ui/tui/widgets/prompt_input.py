"""PromptInput: where the user types. Enter sends; shift+enter or ctrl+j adds a line; up/down walk the history.

It only edits text and reports intent through messages; the screen decides what a submitted prompt means
(send, queue, slash command or ``!`` shell command) and what completions to offer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from agentcli.ui.history import PromptHistory


class PromptInput(TextArea):
    """A multi-line prompt editor that grows with its text up to a few lines."""

    DEFAULT_CSS = """
    PromptInput { height: auto; max-height: 10; min-height: 1; }
    """

    @dataclass
    class Submitted(Message):
        """Enter was pressed with this text."""

        prompt: PromptInput
        text: str

        @property
        def control(self) -> PromptInput:
            return self.prompt

    @dataclass
    class Changed(Message):
        """The text or cursor moved; completions may need to change."""

        prompt: PromptInput

        @property
        def control(self) -> PromptInput:
            return self.prompt

    @dataclass
    class CompletionKey(Message):
        """A key the completion menu handles while it is open (up, down, tab, enter, escape)."""

        prompt: PromptInput
        key: str

        @property
        def control(self) -> PromptInput:
            return self.prompt

    def __init__(self, history: PromptHistory | None = None, *, id: str | None = None, placeholder: str = "") -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            compact=True,
            placeholder=placeholder,
            highlight_cursor_line=False,
        )
        self.prompt_history = history or PromptHistory(None)
        self.completing = False
        self.take_queued: Callable[[], str] | None = None
        """Takes back the prompts waiting to be sent (joined), for ↑ on an empty prompt to edit them."""
        self._browse_index: int | None = None
        self._draft = ""

    # -- keys -------------------------------------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if self.completing and key in ("up", "down", "tab", "enter", "escape"):
            event.stop()
            event.prevent_default()
            self.post_message(self.CompletionKey(self, key))
            return
        if key == "enter":
            event.stop()
            event.prevent_default()
            if self.text.endswith("\\") and self.cursor_location == self.document.end:
                self.replace("\n", (self.cursor_location[0], self.cursor_location[1] - 1), self.cursor_location)
                return
            self.post_message(self.Submitted(self, self.text))
            return
        if key in ("shift+enter", "ctrl+j", "newline", "alt+enter"):
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if key == "up" and not self.text and self.take_queued is not None and (queued := self.take_queued()):
            event.stop()
            event.prevent_default()
            self.set_prompt(queued)
            return
        if key == "up" and self.cursor_location[0] == 0 and self._history_step(-1):
            event.stop()
            event.prevent_default()
            return
        if key == "down" and self.cursor_location[0] == self.document.line_count - 1 and self._history_step(1):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    def _history_step(self, direction: int) -> bool:
        """Replace the text with the previous (-1) or next (+1) history entry; False if there is none."""
        entries = self.prompt_history.entries
        if not entries:
            return False
        if self._browse_index is None:
            if direction > 0:
                return False
            self._draft = self.text
            index = len(entries) - 1
        else:
            index = self._browse_index + direction
        if index < 0:
            return True
        if index >= len(entries):
            self._browse_index = None
            self._set_text(self._draft)
            return True
        self._browse_index = index
        self._set_text(entries[index])
        return True

    def _set_text(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def set_prompt(self, text: str) -> None:
        """Replace the text (for example with a history search result) and put the cursor at the end."""
        self._browse_index = None
        self._set_text(text)

    def clear_prompt(self) -> None:
        self._browse_index = None
        self.load_text("")

    # -- change tracking --------------------------------------------------------------------------------------------

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(self))

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        event.stop()
        self.post_message(self.Changed(self))

    def word_before_cursor(self) -> tuple[str, tuple[int, int]]:
        """The whitespace-free word that ends at the cursor, and where it starts."""
        row, column = self.cursor_location
        line = self.document.get_line(row)[:column]
        start = len(line) - len(line.split(" ")[-1].split("\t")[-1])
        return line[start:], (row, start)
