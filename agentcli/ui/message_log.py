"""MessageLog: a session's messages as a face keeps them for replay (the detailed transcript, an export).

Stream events are kept only until their complete message arrives, which then takes their place; consecutive
progress reports of one tool call keep only the latest. The log stays small however long the answers are, and a
replay meets each message in the order it happened.
"""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]


class MessageLog(list[Message]):
    """A list of SDK messages that folds streams into their complete messages as they arrive."""

    _stream_start: int | None = None

    def add(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "stream_event":
            if (message.get("event") or {}).get("type") == "message_start":
                self._stream_start = len(self)
        elif kind == "assistant" and self._stream_start is not None:
            # The complete message takes the place of the first of its stream events, so a replay meets it
            # before the tool events it caused.
            start = self._stream_start
            self[start:] = [message, *(m for m in self[start:] if m.get("type") != "stream_event")]
            self._stream_start = None
            return
        elif kind == "system" and message.get("subtype") == "tool_progress" and self:
            last = self[-1]
            if last.get("subtype") == "tool_progress" and last.get("tool_use_id") == message.get("tool_use_id"):
                self[-1] = message
                return
        self.append(message)

    def clear(self) -> None:
        super().clear()
        self._stream_start = None

    @property
    def has_prompt(self) -> bool:
        """True once a person sent something in this session (so it is worth resuming)."""
        return any(message.get("type") == "user" for message in self)
