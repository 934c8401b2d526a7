"""UserPrompt: what the person typed, as it appears in the conversation."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.content import Content
from textual.widgets import Static


class UserPrompt(Static):
    """A prompt the user sent (``queued`` while it waits for the agent to finish)."""

    DEFAULT_CSS = """
    UserPrompt { height: auto; }
    """

    def __init__(self, text: str, *, queued: bool = False, shell: bool = False) -> None:
        self.prompt_text = text
        self.shell = shell
        super().__init__(self._content(queued), classes="-queued" if queued else "")

    def _content(self, queued: bool) -> Content:
        mark = "! " if self.shell else "> "
        body = Content.styled(mark, "$accent bold") + Content(self.prompt_text)
        if queued:
            body = body + Content.styled("  (queued)", "$text-muted italic")
        return body

    def recipe(self) -> Callable[[], UserPrompt]:
        """How to build this prompt again (plain data, for frozen history)."""
        return partial(UserPrompt, self.prompt_text, shell=self.shell)

    def mark_sent(self) -> None:
        """The queued prompt has gone to the agent."""
        self.remove_class("-queued")
        self.update(self._content(False))
