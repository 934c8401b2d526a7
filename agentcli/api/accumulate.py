"""Assemble an assistant message from raw stream events, field for field as the SDK's own accumulator does.

No I/O and no SDK types: plain dicts in, plain dicts out, so it is cheap on the per-delta path and easy to test.
Text, thinking and tool JSON are collected as lists of pieces and joined once, at ``content_block_stop``.
Whatever the API sends that we do not interpret (new message fields, new block types, usage details such as
``server_tool_use``, ``cache_creation`` or ``service_tier``) is kept as it came.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
"""The four counters that cost and context accounting add up."""

DELTA_USAGE_KEYS = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "server_tool_use",
    "output_tokens_details",
    "iterations",
    "fallback_credit",
)
"""Cumulative totals a ``message_delta`` may carry; when present they replace the ``message_start`` value."""

TOOL_INPUT_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
"""Blocks whose ``input`` streams as ``input_json_delta`` pieces."""


def empty_usage() -> dict[str, int]:
    return dict.fromkeys(USAGE_KEYS, 0)


@dataclass(slots=True)
class InvalidToolInput:
    """A tool_use whose streamed JSON did not parse; the model is told, the loop does not crash."""

    tool_use_id: str
    raw: str
    error: str


@dataclass(slots=True)
class _OpenBlock:
    block: dict[str, Any]
    pieces: list[str] = field(default_factory=list)


class MessageAccumulator:
    """Feed raw stream events; read ``message()`` when the stream is done.

    ``feed`` returns the finished content block on ``content_block_stop`` (so a tool can start while the rest
    of the message still streams) and ``None`` otherwise.
    """

    __slots__ = ("_message", "_open", "content", "invalid_inputs", "started", "stopped")

    def __init__(self) -> None:
        self._message: dict[str, Any] = {}
        self.content: list[dict[str, Any]] = []
        self.started = False
        self.stopped = False
        self.invalid_inputs: dict[str, InvalidToolInput] = {}
        self._open: dict[int, _OpenBlock] = {}

    def feed(self, event: dict[str, Any]) -> dict[str, Any] | None:
        kind = event.get("type")
        if kind == "content_block_delta":
            self._delta(self._open[event["index"]], event["delta"])
            return None
        if kind == "content_block_start":
            block = dict(event["content_block"])
            if block.get("type") == "fallback" and isinstance(block.get("to"), dict):
                self._message["model"] = block["to"].get("model")  # the model that goes on to answer
            self._open[event["index"]] = _OpenBlock(block)
            return None
        if kind == "content_block_stop":
            return self._close(event["index"])
        if kind == "message_start":
            self._start(event["message"])
        elif kind == "message_delta":
            self._message_delta(event)
        elif kind == "message_stop":
            self.stopped = True
        return None

    @staticmethod
    def _delta(open_block: _OpenBlock, delta: dict[str, Any]) -> None:
        dtype = delta.get("type")
        if dtype == "text_delta":
            open_block.pieces.append(delta["text"])
        elif dtype == "input_json_delta":
            open_block.pieces.append(delta["partial_json"])
        elif dtype == "thinking_delta":
            open_block.pieces.append(delta["thinking"])
        elif dtype == "signature_delta":
            open_block.block["signature"] = delta["signature"]
        elif dtype == "citations_delta":
            block = open_block.block
            if block.get("citations"):
                block["citations"].append(delta["citation"])
            else:
                block["citations"] = [delta["citation"]]
        elif dtype == "compaction_delta":
            # each compaction delta carries the whole summary so far, not a piece of it
            open_block.block["content"] = delta.get("content")
            open_block.block["encrypted_content"] = delta.get("encrypted_content")

    def _start(self, message: dict[str, Any]) -> None:
        self.started = True
        self._message = {**message, "usage": dict(message.get("usage") or {})}
        # blocks the API sent whole in message_start come first; streamed blocks follow them
        self.content = [dict(block) for block in message.get("content") or []]

    def _message_delta(self, event: dict[str, Any]) -> None:
        delta = event.get("delta") or {}
        message = self._message
        for key in ("stop_reason", "stop_sequence", "stop_details"):
            message[key] = delta.get(key)
        if delta.get("container") is not None:
            message["container"] = delta["container"]
        for key in ("context_management", "input_transformations"):
            if event.get(key) is not None:
                message[key] = event[key]
        usage = event.get("usage")
        if usage:
            merged = message.setdefault("usage", {})
            merged["output_tokens"] = usage.get("output_tokens")
            for key in DELTA_USAGE_KEYS:
                if usage.get(key) is not None:
                    merged[key] = usage[key]

    def _close(self, index: int) -> dict[str, Any]:
        open_block = self._open.pop(index)
        block = open_block.block
        btype = block.get("type")
        if btype == "text":
            block["text"] = (block.get("text") or "") + "".join(open_block.pieces)
        elif btype == "thinking":
            block["thinking"] = (block.get("thinking") or "") + "".join(open_block.pieces)
        elif btype in TOOL_INPUT_BLOCKS:
            self._tool_input(block, "".join(open_block.pieces))
        while len(self.content) <= index:
            self.content.append({})
        self.content[index] = block
        return block

    def _tool_input(self, block: dict[str, Any], raw: str) -> None:
        """Parse the streamed input. What a cut-off stream left (a truncated object) is kept as far as it goes, as
        the SDK keeps it, but the call is marked invalid so that it never runs on half an input."""
        if not raw:
            if not isinstance(block.get("input"), dict):
                block["input"] = {}
            return
        block_id = str(block.get("id"))
        try:
            parsed = json.loads(raw)
        except ValueError as exc:
            self.invalid_inputs[block_id] = InvalidToolInput(block_id, raw, str(exc))
            block["input"] = _partial_object(raw)
            return
        if not isinstance(parsed, dict):
            self.invalid_inputs[block_id] = InvalidToolInput(block_id, raw, "input is not a JSON object")
            parsed = {}
        block["input"] = parsed

    @property
    def id(self) -> str | None:
        return self._message.get("id")

    @property
    def model(self) -> str | None:
        return self._message.get("model")

    @property
    def stop_reason(self) -> str | None:
        return self._message.get("stop_reason")

    @property
    def usage(self) -> dict[str, Any]:
        return self._message.get("usage") or {}

    @property
    def complete_blocks(self) -> list[dict[str, Any]]:
        """Blocks that finished streaming (placeholders of unfinished ones dropped), in index order."""
        return [block for block in self.content if block]

    def partial_content(self) -> list[dict[str, Any]]:
        """What has streamed so far, for an answer cut short: finished blocks, plus the text of text blocks still
        open (a half-streamed tool call or thinking block is left out: it cannot be sent back)."""
        blocks = {index: block for index, block in enumerate(self.content) if block}
        for index, open_block in self._open.items():
            if open_block.block.get("type") == "text":
                text = (open_block.block.get("text") or "") + "".join(open_block.pieces)
                if text:
                    blocks[index] = {**open_block.block, "text": text}
        return [blocks[index] for index in sorted(blocks)]

    def message(self) -> dict[str, Any]:
        """The assistant message as the API would return it (only finished blocks)."""
        message = {
            "id": None,
            "type": "message",
            "role": "assistant",
            "model": None,
            "stop_reason": None,
            "stop_sequence": None,
            **self._message,
        }
        message["content"] = self.complete_blocks
        message["usage"] = dict(self.usage)
        return message


def _partial_object(raw: str) -> dict[str, Any]:
    """As much of a truncated JSON object as is complete (``{}`` when nothing is, or it is not JSON at all)."""
    import jiter

    try:
        value = jiter.from_json(raw.encode(), partial_mode=True)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
