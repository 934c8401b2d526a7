"""ThinkingBlock: the model's thinking, one line in the main view and in full in the detailed transcript."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.content import Content
from textual.widgets import Static


class ThinkingBlock(Static):
    """Collapsed to "✻ Thinking…" unless ``verbose``; the text is kept either way."""

    DEFAULT_CSS = """
    ThinkingBlock { height: auto; }
    """

    def __init__(self, text: str = "", *, verbose: bool = False, redacted: bool = False, done: bool = False) -> None:
        super().__init__("")
        self._parts = [text] if text else []
        self.verbose = verbose
        self.redacted = redacted
        self.done = done

    def recipe(self) -> Callable[[], ThinkingBlock]:
        """How to build this block again (plain data, for frozen history)."""
        return partial(ThinkingBlock, self.thinking_text, verbose=self.verbose, redacted=self.redacted, done=self.done)

    @property
    def thinking_text(self) -> str:
        return "".join(self._parts)

    def append(self, fragment: str) -> None:
        self._parts.append(fragment)
        if self.verbose:
            self._show()

    def finish(self, text: str | None = None) -> None:
        if text is not None:
            self._parts = [text]
        self.done = True
        self._show()

    def on_mount(self) -> None:
        self._show()

    def _show(self) -> None:
        label = "✻ Thinking (redacted)" if self.redacted else ("✻ Thought" if self.done else "✻ Thinking…")
        head = Content.styled(label, "$text-muted italic")
        if self.verbose and self.thinking_text:
            head = head + Content("\n") + Content.styled(self.thinking_text, "$text-muted italic")
        self.update(head)
