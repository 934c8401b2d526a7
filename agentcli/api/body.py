"""The request body, encoded incrementally: each message's JSON is made once and reused by every later request.

A message, once sent, never changes (the history is append-only and compaction builds new messages), so its bytes
are remembered by identity. Prompt-cache breakpoints move from request to request; they go on copies, and a
marked message's bytes are remembered beside its plain ones. Per request, only new messages, the one or two that
gain or lose a breakpoint for the first time, and the small top-level fields are encoded; nothing walks or copies
the whole history. The bytes are the ones the SDK sends for the same request: its key order, compact separators,
UTF-8 without escapes, no NaN.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agentcli.api.cache import (
    marked_message,
    marked_system,
    marked_tool,
    markers_in,
    outside_markers,
    plan_breakpoints,
)
from agentcli.api.request import ModelRequest

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
KEEP_UNUSED_FOR = 8
"""Requests an unused entry survives: a hook's or a tool's own small request in between drops nothing."""


def dumps(value: Any) -> bytes:
    return _encode(value).encode()


class _Encoded:
    """One object's JSON, plain and with a breakpoint, each made when first needed."""

    __slots__ = ("marked", "markers", "plain", "source", "used")

    def __init__(self, source: dict[str, Any], markers: int, used: int) -> None:
        self.source = source
        """Held so the object outlives its entry: an id is never reused while the entry stands."""
        self.markers = markers
        self.plain: bytes | None = None
        self.marked: bytes | None = None
        self.used = used

    def bytes(self, mark: bool, marked_copy: Callable[[dict[str, Any]], dict[str, Any]]) -> bytes:
        if mark:
            if self.marked is None:
                self.marked = dumps(marked_copy(self.source))
            return self.marked
        if self.plain is None:
            self.plain = dumps(self.source)
        return self.plain


class _Memo:
    """Entries by object identity, pruned of those no request used for a while."""

    def __init__(self) -> None:
        self._entries: dict[int, _Encoded] = {}
        self.generation = 0

    def get(self, source: dict[str, Any], count_markers: Callable[[dict[str, Any]], int]) -> _Encoded:
        entry = self._entries.get(id(source))
        if entry is None or entry.source is not source:
            entry = self._entries[id(source)] = _Encoded(source, count_markers(source), self.generation)
        else:
            entry.used = self.generation
        return entry

    def prune(self, in_use: int) -> None:
        self.generation += 1
        if len(self._entries) > 2 * in_use + 64:
            oldest = self.generation - KEEP_UNUSED_FOR
            self._entries = {key: entry for key, entry in self._entries.items() if entry.used >= oldest}


def _tool_markers(tool: dict[str, Any]) -> int:
    return int("cache_control" in tool)


class RequestEncoder:
    """Encodes one client's requests, remembering the JSON of every message and tool it has sent."""

    def __init__(self) -> None:
        self._messages = _Memo()
        self._tools = _Memo()
        self._system: tuple[object, bool, bytes] | None = None

    def encode(self, request: ModelRequest) -> bytes:
        messages = [self._messages.get(message, markers_in) for message in request.messages]
        tools = [self._tools.get(tool, _tool_markers) for tool in request.tools]
        if request.cache:
            existing = sum(entry.markers for entry in messages) + outside_markers(request.system, request.tools)
            plan = plan_breakpoints(request.messages, request.system, request.tools, existing)
            marked, mark_system, mark_tools = set(plan.messages), plan.system, plan.tools
        else:
            marked, mark_system, mark_tools = set(), False, False
        parts = [b'{"max_tokens":', dumps(request.max_tokens), b',"messages":[']
        parts.append(b",".join([entry.bytes(n in marked, marked_message) for n, entry in enumerate(messages)]))
        parts += [b'],"model":', dumps(request.model)]
        if request.metadata:
            parts += [b',"metadata":', dumps(request.metadata)]
        parts.append(b',"stream":true')
        if request.system:
            parts += [b',"system":', self._system_bytes(request.system, mark_system)]
        if request.thinking:
            parts += [b',"thinking":', dumps(request.thinking)]
        if tools:
            last = len(tools) - 1
            encoded = [entry.bytes(mark_tools and n == last, marked_tool) for n, entry in enumerate(tools)]
            parts += [b',"tools":[', b",".join(encoded), b"]"]
        parts.append(b"}")
        self._messages.prune(len(messages))
        self._tools.prune(len(tools))
        return b"".join(parts)

    def _system_bytes(self, system: str | list[dict[str, Any]], mark: bool) -> bytes:
        remembered = self._system
        if remembered is not None and remembered[0] is system and remembered[1] == mark:
            return remembered[2]
        encoded = dumps(marked_system(system) if mark else system)
        self._system = (system, mark, encoded)
        return encoded
