"""The conversation the model sees, with one owner.

The engine owns a :class:`Conversation` for the session and hands it to the loop, which appends what the model
said and what the tools returned. Messages are appended, never edited: a request repeats the previous one byte for
byte (prompt caching). Compaction is the one deliberate exception: :meth:`replace` starts a new prefix; a turn the
API refused is taken back whole (:meth:`take_back`), leaving the prefix as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentcli.context.tokens import estimate_message, usage_context_tokens

Message = dict[str, Any]


@dataclass
class Conversation:
    messages: list[Message] = field(default_factory=list)
    generation: int = 0
    """How many times the prefix was replaced (compactions); faces and tests can watch it."""
    _sizes: list[int] = field(default_factory=list, repr=False)
    _anchor_count: int = 0
    _anchor_tokens: int = 0

    def __post_init__(self) -> None:
        self._sizes = [estimate_message(message) for message in self.messages]

    def append(self, message: Message) -> None:
        self.messages.append(message)
        self._sizes.append(estimate_message(message))

    def take_back(self, length: int) -> None:
        """Drop what was appended after the first ``length`` messages (a turn the API refused); the prefix stays
        byte for byte, and so does the exact count if it covers no more than the prefix."""
        del self.messages[length:]
        del self._sizes[length:]
        if self._anchor_count > length:
            self._anchor_count = self._anchor_tokens = 0

    def replace(self, messages: list[Message]) -> None:
        """Start a new prefix (a compaction): the exact count from the last response no longer applies."""
        old, sizes = self.messages, self._sizes
        self.messages = list(messages)
        # Messages kept as they were (the same objects: microcompact replaces only what it cleared) keep their size.
        self._sizes = [
            sizes[index] if index < len(old) and message is old[index] else estimate_message(message)
            for index, message in enumerate(self.messages)
        ]
        self._anchor_count = 0
        self._anchor_tokens = 0
        self.generation += 1

    def note_usage(self, usage: dict[str, Any]) -> None:
        """The response just appended reports what the context held: the exact count up to and including it."""
        tokens = usage_context_tokens(usage)
        if tokens > 0:
            self._anchor_count = len(self.messages)
            self._anchor_tokens = tokens

    def context_tokens(self, overhead: int) -> int:
        """Tokens the next request would hold: exact up to the last response (system and tools included), then
        estimated; ``overhead`` is the estimate for system prompt and tools, used when nothing exact is known."""
        count = min(self._anchor_count, len(self._sizes))
        if count == 0:
            return overhead + sum(self._sizes)
        return self._anchor_tokens + sum(self._sizes[count:])

    @property
    def exact_through(self) -> int:
        """How many messages the exact count covers (0: all estimated)."""
        return self._anchor_count

    def size_of(self, index: int) -> int:
        return self._sizes[index]
