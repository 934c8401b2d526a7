"""Fitting a summary request into what the API takes.

A summary request repeats the history it summarises, so it is as large as the request that needed compacting,
and larger than one the API just refused. What the refusal said it counted calibrates our estimates; the history
is then cut down to fit, cheapest first: the oversized tool results of the oldest rounds are trimmed, then the
oldest rounds are left out (an earlier summary at the head stays), then whatever is still oversized is trimmed.
Every cut is marked in the text, and the caller tells the user what was left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agentcli.context.compact_messages import cut_middle, is_continuation, safe_starts
from agentcli.context.tokens import CHARS_PER_TOKEN, estimate_block, estimate_message

Message = dict[str, Any]

SAFETY = 0.9
"""A fitted request aims at this share of the room, for what the estimate gets wrong."""
TRIMMED_CHARS = 2_000
"""An oversized tool result keeps this much (its start and end)."""
MIN_BLOCK_CHARS = 400
"""No block is trimmed below this: past it, the request cannot be made to fit."""
LEFT_OUT = (
    "({count} earlier messages of this conversation were left out of this request so that it fits; the user's "
    "own messages are carried over separately.)"
)
TRIM_NOTE = "\n[… {} characters left out of this request so that it fits …]\n"
_SIZES = re.compile(r"(\d[\d,]*)\s*tokens\s*>\s*(\d[\d,]*)")


@dataclass(frozen=True)
class Refusal:
    """A prompt-too-long answer: what the server counted, the most it takes, and our estimate of that request."""

    tokens: int
    maximum: int
    estimate: int

    @property
    def ratio(self) -> float:
        """Server tokens per estimated token."""
        return self.tokens / max(1, self.estimate)

    def room(self, answer_tokens: int) -> int:
        """The most a request may hold, in estimated tokens, to be taken with ``answer_tokens`` of answer: below
        the server's maximum, and never as large as the refused request."""
        server_room = min(self.tokens - 1, self.maximum - answer_tokens) * SAFETY
        return max(0, int(server_room / self.ratio))


def refusal_sizes(message: str) -> tuple[int, int] | None:
    """The counts a prompt-too-long message names (``prompt is too long: 212345 tokens > 200000 maximum``)."""
    found = _SIZES.search(message)
    if found is None:
        return None
    return int(found.group(1).replace(",", "")), int(found.group(2).replace(",", ""))


@dataclass(frozen=True)
class Fitted:
    messages: list[Message]
    trimmed: int
    """Blocks cut to their start and end."""
    left_out: int
    """Messages left out."""


def fit_history(messages: list[Message], room: int) -> Fitted | None:
    """``messages`` cut down to at most ``room`` estimated tokens (a copy; ``messages`` is unchanged), or None
    when even the latest exchange, trimmed, cannot fit."""
    history = list(messages)
    total = sum(estimate_message(m) for m in history)
    if total <= room:
        return Fitted(history, 0, 0)
    trimmed = 0
    for index, message in enumerate(history):  # oldest first
        if total <= room:
            break
        cut, saved, count = _trim_results(message, TRIMMED_CHARS)
        if count:
            history[index] = cut
            total -= saved
            trimmed += count
    left_out = 0
    if total > room:
        history, left_out = _leave_out_oldest(history, room)
        total = sum(estimate_message(m) for m in history)
    while total > room:
        found = _largest_block(history)
        if found is None:
            return None
        index, position, chars = found
        keep = max(MIN_BLOCK_CHARS, chars - (total - room) * CHARS_PER_TOKEN - len(TRIM_NOTE) - 16)
        content = _blocks(history[index])
        block = content[position]
        content[position] = _trim_block(block, keep)
        saved = estimate_block(block) - estimate_block(content[position])
        if saved <= 0:
            return None
        total -= saved
        history[index] = {**history[index], "content": content}
        trimmed += 1
    return Fitted(history, trimmed, left_out)


def _blocks(message: Message) -> list[Any]:
    """A copy of the message's content as blocks (a plain string prompt is one text block)."""
    content = message.get("content")
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])


def _leave_out_oldest(history: list[Message], room: int) -> tuple[list[Message], int]:
    """The history from the earliest safe start that fits ``room`` (from the last one if none does), after an
    earlier summary at its head and a note saying how much was left out."""
    head = history[:1] if history and is_continuation(history[0]) else []
    sizes = [estimate_message(m) for m in history]
    starts = [index for index in safe_starts(history) if index > len(head)]
    if not starts:
        return history, 0
    chosen = starts[-1]
    fixed = sum(sizes[: len(head)]) + estimate_message(_note(len(history)))
    for index in starts:
        if fixed + sum(sizes[index:]) <= room:
            chosen = index
            break
    left_out = chosen - len(head)
    return [*head, _note(left_out), *history[chosen:]], left_out


def _note(count: int) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": LEFT_OUT.format(count=count)}]}


def _trim_text(text: str, keep: int) -> str:
    return cut_middle(text, keep + len(TRIM_NOTE) + 16, TRIM_NOTE) if len(text) > keep + len(TRIM_NOTE) else text


def _trim_block(block: Message, keep: int) -> Message:
    """A text block or tool result with its text cut to about ``keep`` characters (images in a result go)."""
    if block.get("type") == "text":
        return {**block, "text": _trim_text(str(block.get("text", "")), keep)}
    content = block.get("content")
    if isinstance(content, list):
        texts = [str(item.get("text", "")) for item in content if isinstance(item, dict) and item.get("type") == "text"]
        others = len(content) - len(texts)
        text = "\n".join(texts) + (f"\n[{others} non-text parts left out of this request]" if others else "")
    else:
        text = str(content or "")
    return {**block, "content": _trim_text(text, keep)}


def _block_chars(block: Any) -> int:
    if not isinstance(block, dict):
        return 0
    if block.get("type") == "text":
        return len(str(block.get("text", "")))
    if block.get("type") == "tool_result":
        return estimate_block(block) * CHARS_PER_TOKEN
    return 0


def _trim_results(message: Message, keep: int) -> tuple[Message, int, int]:
    """``message`` with its tool results over ``keep`` characters trimmed; the tokens saved and how many."""
    content = message.get("content")
    if not isinstance(content, list):
        return message, 0, 0
    out, saved, count = list(content), 0, 0
    for position, block in enumerate(content):
        if isinstance(block, dict) and block.get("type") == "tool_result" and _block_chars(block) > keep * 2:
            out[position] = _trim_block(block, keep)
            saved += estimate_block(block) - estimate_block(out[position])
            count += 1
    return ({**message, "content": out}, saved, count) if count else (message, 0, 0)


def _largest_block(history: list[Message]) -> tuple[int, int, int] | None:
    """Where the largest trimmable block is (message, block, characters), if any is above the floor."""
    best: tuple[int, int, int] | None = None
    for index, message in enumerate(history):
        for position, block in enumerate(_blocks(message)):
            chars = _block_chars(block)
            if chars > MIN_BLOCK_CHARS + len(TRIM_NOTE) + 16 and (best is None or chars > best[2]):
                best = (index, position, chars)
    return best
