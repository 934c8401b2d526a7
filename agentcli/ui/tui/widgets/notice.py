"""NoticeLine: one system line in the conversation (interrupts, warnings, retries, errors)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.content import Content
from textual.widgets import Static

STYLES = {
    "info": "$text-muted",
    "warning": "$warning",
    "error": "$error",
    "success": "$success",
    "turn-end": "$text-muted",
}


class NoticeLine(Static):
    """A short styled line; ``kind`` is info, warning, error or success."""

    DEFAULT_CSS = """
    NoticeLine { height: auto; }
    """

    def __init__(self, text: str, kind: str = "info", *, detail: str = "") -> None:
        content = Content.styled(text, STYLES.get(kind, "$text-muted"))
        if detail:
            content = content + Content("\n") + Content.styled(detail, "$text-muted")
        super().__init__(content, classes=f"-{kind}")
        self.kind = kind
        self.notice_text = text
        self.detail = detail

    def recipe(self) -> Callable[[], NoticeLine]:
        """How to build this line again (plain data, for frozen history)."""
        return partial(NoticeLine, self.notice_text, self.kind, detail=self.detail)
