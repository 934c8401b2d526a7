"""Assemble an assistant message from raw stream events.

No I/O and no SDK types: plain dicts in, plain dicts out, so it is cheap on the per-delta path and easy to test.
Text is collected as a list of pieces and joined once at ``content_block_stop``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


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
    signature: list[str] = field(default_factory=list)


class MessageAccumulator:
    """Feed raw stream events; read ``message`` when the stream is done.

    ``feed`` returns the finished content block on ``content_block_stop`` (so a tool can start while the rest
    of the message still streams) and ``None`` otherwise.
    """

    __slots__ = ("_open", "content", "id", "invalid_inputs", "model", "started", "stop_reason", "stop_sequence",
                 "stopped", "usage")

    def __init__(self) -> None:
        self.id: str | None = None
        self.model: str | None = None
        self.content: list[dict[str, Any]] = []
        self.stop_reason: str | None = None
        self.stop_sequence: str | None = None
        self.usage: dict[str, int] = empty_usage()
        self.started = False
        self.stopped = False
        self.invalid_inputs: dict[str, InvalidToolInput] = {}
        self._open: dict[int, _OpenBlock] = {}

    def feed(self, event: dict[str, Any]) -> dict[str, Any] | None:
        kind = event.get("type")
        if kind == "content_block_delta":
            delta = event["delta"]
            open_block = self._open[event["index"]]
            dtype = delta.get("type")
            if dtype == "text_delta":
                open_block.pieces.append(delta["text"])
            elif dtype == "input_json_delta":
                open_block.pieces.append(delta["partial_json"])
            elif dtype == "thinking_delta":
                open_block.pieces.append(delta["thinking"])
            elif dtype == "signature_delta":
                open_block.signature.append(delta["signature"])
            elif dtype == "citations_delta":
                open_block.block.setdefault("citations", []).append(delta["citation"])
            return None
        if kind == "content_block_start":
            block = dict(event["content_block"])
            self._open[event["index"]] = _OpenBlock(block)
            return None
        if kind == "content_block_stop":
            return self._close(event["index"])
        if kind == "message_start":
            message = event["message"]
            self.started = True
            self.id = message.get("id")
            self.model = message.get("model")
            self._merge_usage(message.get("usage"))
            return None
        if kind == "message_delta":
            delta = event.get("delta") or {}
            if delta.get("stop_reason") is not None:
                self.stop_reason = delta["stop_reason"]
            if delta.get("stop_sequence") is not None:
                self.stop_sequence = delta["stop_sequence"]
            self._merge_usage(event.get("usage"))
            return None
        if kind == "message_stop":
            self.stopped = True
        return None

    def _merge_usage(self, usage: dict[str, Any] | None) -> None:
        if not usage:
            return
        for key in USAGE_KEYS:
            value = usage.get(key)
            if isinstance(value, int):
                self.usage[key] = value
        server = usage.get("server_tool_use")
        if isinstance(server, dict):  # web searches the API ran (priced per request)
            self.usage["server_tool_use"] = dict(server)  # type: ignore[assignment]

    def _close(self, index: int) -> dict[str, Any]:
        open_block = self._open.pop(index)
        block = open_block.block
        btype = block.get("type")
        if btype == "text":
            block["text"] = block.get("text", "") + "".join(open_block.pieces)
        elif btype == "thinking":
            block["thinking"] = block.get("thinking", "") + "".join(open_block.pieces)
            if open_block.signature:
                block["signature"] = "".join(open_block.signature)
        elif btype in ("tool_use", "server_tool_use"):
            raw = "".join(open_block.pieces)
            if raw.strip():
                try:
                    parsed = json.loads(raw)
                except ValueError as exc:
                    parsed = None
                    self.invalid_inputs[block["id"]] = InvalidToolInput(block["id"], raw, str(exc))
                if parsed is not None and not isinstance(parsed, dict):
                    self.invalid_inputs[block["id"]] = InvalidToolInput(block["id"], raw, "input is not a JSON object")
                    parsed = None
                block["input"] = parsed if parsed is not None else {}
            elif not isinstance(block.get("input"), dict):
                block["input"] = {}
        while len(self.content) <= index:
            self.content.append({})
        self.content[index] = block
        return block

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
                text = open_block.block.get("text", "") + "".join(open_block.pieces)
                if text:
                    blocks[index] = {**open_block.block, "text": text}
        return [blocks[index] for index in sorted(blocks)]

    def message(self) -> dict[str, Any]:
        """The assistant message as the API would return it (only finished blocks)."""
        return {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": self.complete_blocks,
            "stop_reason": self.stop_reason,
            "stop_sequence": self.stop_sequence,
            "usage": dict(self.usage),
        }
