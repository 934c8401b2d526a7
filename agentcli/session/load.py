"""Read a transcript back into the API history, repairing what a crash or a hostile edit left behind.

The rebuilt history is the one the engine sent: a prompt line becomes ``{"role": "user", "content": prompt}``, an
assistant line becomes its ``assistant_param``, and the one-line-per-result tool results of an assistant message are
merged back into the single user message the API needs. Display-only lines (API error notices) and sub-agent
lines are not sent. Whatever cannot be read is skipped and reported with its line number; the result is always a
history the API accepts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli.loop.repair import assistant_param
from agentcli.tools.executor import tool_result_block

Message = dict[str, Any]

INTERRUPTED = "interrupted — check whether it took effect"
UNREADABLE_START = "(The start of this conversation could not be read from its transcript.)"
REPAIR_SUBTYPE = "transcript_repair"
REJECTED_SUBTYPE = "turn_rejected"
"""A line saying the API refused the turn of the prompt it names (``rejectedPrompt``): that turn is not sent again."""
_ID = re.compile(r"^[a-zA-Z0-9_-]+$")


class _Invalid(Exception):
    """A line that cannot take part in the history; the message says why."""


@dataclass
class Transcript:
    """A loaded session: the history to send, and what the loader had to repair to get it."""

    path: Path
    messages: list[Message] = field(default_factory=list)
    last_uuid: str | None = None
    warnings: list[str] = field(default_factory=list)
    torn_tail: bool = False
    """The file does not end with a newline: seal it before appending."""
    dangling: list[Message] = field(default_factory=list)
    """tool_use blocks at the end that had no result; the history answers them, the resume persists that."""
    new_bad_lines: list[int] = field(default_factory=list)
    """Unreadable lines no earlier repair note acknowledged."""
    entries: list[Message] | None = None
    """Every readable line in order (kept for a fork)."""


BOUNDARY_MARKER = b'"subtype":"compact_boundary"'
"""How the store writes a compact boundary (compact JSON); inside a string value the quotes would be escaped."""
_SCAN_CHUNK = 1 << 20


def last_boundary(path: Path) -> tuple[int, int] | None:
    """Byte offset and line number (0-based count of lines before it) of the last compact boundary's line, found
    from the end of the file without reading what comes before it; None when there is none."""
    with path.open("rb") as handle:
        end = handle.seek(0, 2)
        tail = b""
        while end > 0:
            start = max(0, end - _SCAN_CHUNK)
            handle.seek(start)
            block = handle.read(end - start) + tail
            found = block.rfind(BOUNDARY_MARKER)
            while found != -1:
                line_start = block.rfind(b"\n", 0, found) + 1
                if line_start > 0 or start == 0:
                    offset = start + line_start
                    line_end = block.find(b"\n", found)
                    if _is_boundary(block[line_start : line_end if line_end != -1 else len(block)]):
                        return offset, _count_lines(handle, offset)
                    found = block.rfind(BOUNDARY_MARKER, 0, found)
                else:
                    break  # the line starts in the block before this one
            tail = block[: block.find(b"\n") + 1] if b"\n" in block else block
            end = start
    return None


def _is_boundary(raw: bytes) -> bool:
    try:
        entry = json.loads(raw)
    except (ValueError, RecursionError):
        return False
    return type(entry) is dict and entry.get("type") == "system" and entry.get("subtype") == "compact_boundary"


def _count_lines(handle: Any, offset: int) -> int:
    handle.seek(0)
    count = 0
    remaining = offset
    while remaining > 0:
        chunk = handle.read(min(_SCAN_CHUNK, remaining))
        if not chunk:
            break
        count += chunk.count(b"\n")
        remaining -= len(chunk)
    return count


def load_transcript(path: Path, *, keep_entries: bool = False, whole: bool = False) -> Transcript:  # noqa: C901
    """Parse ``path``; never raises for bad content (an unreadable file raises ``OSError``).

    The history starts at the last compact boundary, so a compacted session is read from there on. ``whole``
    gives everything that happened instead, compactions or not (for ``/export``): the summaries and the
    messages they repeated are left out. ``keep_entries`` reads every line too."""
    transcript = Transcript(path=path, entries=[] if keep_entries else None)
    builder = _HistoryBuilder()
    builder.whole = whole
    problems: dict[int, str] = {}
    acknowledged: set[int] = set()
    seen_uuids: set[str] = set()
    loads = json.loads
    lineno = 0
    skip_to = None if keep_entries or whole else last_boundary(path)
    # Iterating the file is the cheapest way through it (no second copy of the bytes); only the last line can
    # lack its newline, and only a crash mid-write leaves it so.
    with path.open("rb") as handle:
        if skip_to is not None:
            handle.seek(skip_to[0])
            lineno = skip_to[1]
        for raw in handle:
            lineno += 1
            if raw.isspace():
                continue
            torn = not raw.endswith(b"\n")
            transcript.torn_tail = torn
            try:
                entry = loads(raw)
            except (ValueError, RecursionError):
                problems[lineno] = "torn" if torn else "not valid JSON"
                continue
            if type(entry) is not dict:
                problems[lineno] = "not a JSON object"
                continue
            uid = entry.get("uuid")
            if isinstance(uid, str):
                if uid in seen_uuids:
                    problems[lineno] = "repeats an earlier line"
                    continue
                seen_uuids.add(uid)
            kind = entry.get("type")
            try:
                _apply(builder, kind, entry, acknowledged)
            except _Invalid as exc:
                problems[lineno] = str(exc)
                continue
            if isinstance(uid, str):
                transcript.last_uuid = uid
            if keep_entries:
                transcript.entries.append(entry)  # type: ignore[union-attr]

    transcript.dangling = builder.finish(INTERRUPTED)
    transcript.messages = builder.messages
    name = path.name
    for lineno, reason in problems.items():
        if lineno in acknowledged:
            continue
        transcript.new_bad_lines.append(lineno)
        if reason == "torn":
            transcript.warnings.append(
                f"{name}: line {lineno} was cut off mid-write (the previous run was interrupted); skipped it"
            )
        else:
            transcript.warnings.append(f"{name}: line {lineno} is not a valid transcript entry ({reason}); skipped it")
    if builder.middle_repairs:
        transcript.warnings.append(
            f"{name}: {builder.middle_repairs} tool call(s) earlier in the conversation had no result; "
            "they are sent as interrupted"
        )
    if transcript.dangling:
        names = ", ".join(sorted({str(block.get("name")) for block in transcript.dangling}))
        transcript.warnings.append(
            f"{name}: {len(transcript.dangling)} tool call(s) ({names}) were still running when the session "
            "stopped; they are answered as interrupted — check whether they took effect"
        )
    return transcript


def _apply(builder: _HistoryBuilder, kind: object, entry: Message, acknowledged: set[int]) -> None:
    if builder.whole and (entry.get("isCompactSummary") or entry.get("isCompactReplay")):
        return
    if kind == "assistant":
        builder.assistant(entry)
    elif kind == "user":
        builder.user(entry)
    elif kind == "system":
        subtype = entry.get("subtype")
        if subtype == "compact_boundary" and not builder.whole:
            builder.reset()
        elif subtype == REJECTED_SUBTYPE and not builder.whole:
            builder.take_back(entry.get("rejectedPrompt"))
        elif subtype == REPAIR_SUBTYPE:
            skipped = entry.get("skippedLines")
            if isinstance(skipped, list):
                acknowledged.update(n for n in skipped if type(n) is int)
    elif not isinstance(kind, str):
        raise _Invalid("no type")


class _HistoryBuilder:
    """Turns transcript lines into API messages, one line at a time; validates before it changes anything."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.whole = False
        """Read across compact boundaries (everything that happened) instead of starting at the last one."""
        self.middle_repairs = 0
        self._pending: dict[str, Message] = {}  # tool_use id -> block, in tool_use order
        self._group: Message | None = None  # the user message collecting the results of the last assistant
        self._tool_ids: set[str] = set()
        self._response: tuple[str, Message] | None = None  # the last assistant message's API id and entry
        self._last_prompt: tuple[str, int, dict[str, Message]] | None = None  # its uuid, where it began, what was open

    def take_back(self, prompt_uuid: object) -> None:
        """The API refused the turn of the last prompt: the history goes back to what it was before it."""
        if self._last_prompt is None or self._last_prompt[0] != prompt_uuid:
            return
        _, length, pending = self._last_prompt
        del self.messages[length:]
        self._pending = pending
        self._group = None
        self._response = None
        self._last_prompt = None

    def reset(self) -> None:
        """A compact boundary: what came before is summarised by the lines that follow."""
        self.messages = []
        self._pending = {}
        self._group = None
        self._tool_ids = set()
        self._response = None
        self._last_prompt = None

    def assistant(self, entry: Message) -> None:
        if entry.get("isApiErrorMessage") or _is_sidechain(entry):
            return  # display only, or a sub-agent's own conversation
        content = _content(entry, "assistant")
        if not isinstance(content, list):
            raise _Invalid("assistant content is not a list of blocks")
        param = assistant_param(content)
        if param is None:
            return
        ids = [block["id"] for block in param["content"] if block["type"] == "tool_use"]
        if len(set(ids)) != len(ids) or not self._tool_ids.isdisjoint(ids):
            raise _Invalid("repeats a tool call id")
        self._tool_ids.update(ids)
        response_id = entry["message"].get("id")
        if self._response is not None and isinstance(response_id, str) and response_id == self._response[0]:
            # Claude Code writes one line per content block (results may come between): one response, one message.
            self._response[1]["content"].extend(param["content"])
            self._pending.update((block["id"], block) for block in param["content"] if block["type"] == "tool_use")
            return
        self._close_pending()
        self.messages.append(param)
        self._pending = {block["id"]: block for block in param["content"] if block["type"] == "tool_use"}
        self._group = None
        self._response = (response_id, param) if isinstance(response_id, str) else None

    def user(self, entry: Message) -> None:
        if _is_sidechain(entry):
            return
        content = _content(entry, "user")
        uid = entry.get("uuid")
        if isinstance(uid, str) and not entry.get("isMeta") and not self._answers_open_calls(content):
            self._last_prompt = (uid, len(self.messages), dict(self._pending))
        if isinstance(content, str):
            if not content.strip():
                raise _Invalid("empty prompt")
            self._prompt(content)
            return
        if not content:
            raise _Invalid("empty content")
        results = [block for block in content if block["type"] == "tool_result"]
        others = [block for block in content if block["type"] != "tool_result"]
        if results:
            answered = self._answer(results)
            if not answered and not others:
                raise _Invalid("its tool results answer no open tool call")
        if others:
            self._prompt(others)

    def _answers_open_calls(self, content: str | list[Message]) -> bool:
        """Tool results for the calls still open (a turn's own line), as opposed to a prompt."""
        return not isinstance(content, str) and any(
            block["type"] == "tool_result" and block["tool_use_id"] in self._pending for block in content
        )

    def finish(self, reason: str) -> list[Message]:
        """Answer what is still open; returns those tool_use blocks. Ensures the history starts with a user turn."""
        dangling = list(self._pending.values())
        if dangling:
            self._answer([tool_result_block(block["id"], reason, True) for block in dangling])
        if self.messages and self.messages[0]["role"] != "user":
            self.messages.insert(0, {"role": "user", "content": UNREADABLE_START})
        return dangling

    def _prompt(self, content: str | list[Message]) -> None:
        self._close_pending()
        self.messages.append({"role": "user", "content": content})
        self._group = None
        self._response = None

    def _close_pending(self) -> None:
        if self._pending:
            self.middle_repairs += len(self._pending)
            self._answer([tool_result_block(tool_id, INTERRUPTED, True) for tool_id in self._pending])

    def _answer(self, results: list[Message]) -> bool:
        kept = []
        for block in results:
            if self._pending.pop(block["tool_use_id"], None) is not None:
                kept.append(block)
        if not kept:
            return False
        group = self._group
        if group is not None and self.messages and self.messages[-1] is group:
            group["content"].extend(kept)
        else:
            self._group = {"role": "user", "content": kept}
            self.messages.append(self._group)
        return True


def _is_sidechain(entry: Message) -> bool:
    return entry.get("parent_tool_use_id") is not None or entry.get("isSidechain") is True


def _content(entry: Message, role: str) -> str | list[Message]:
    message = entry.get("message")
    if type(message) is not dict:
        raise _Invalid("no message")
    if message.get("role", role) != role:
        raise _Invalid(f"a {entry.get('type')} line holding a {message.get('role')!r} message")
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise _Invalid("content is neither text nor a list of blocks")
    for block in content:
        problem = _block_problem(block, role)
        if problem:
            raise _Invalid(problem)
    return content


def _block_problem(block: Any, role: str) -> str | None:  # noqa: C901
    if type(block) is not dict:
        return "a content block is not an object"
    kind = block.get("type")
    if not isinstance(kind, str):
        return "a content block has no type"
    if kind == "text":
        text = block.get("text")
        if not isinstance(text, str) or (role == "user" and not text):
            return "a text block without text"
        return None
    if kind == "tool_use":
        if role != "assistant":
            return "a tool_use block in a user message"
        tool_id = block.get("id")
        if not isinstance(tool_id, str) or not _ID.match(tool_id):
            return "a tool_use block with a bad id"
        if not isinstance(block.get("name"), str) or not isinstance(block.get("input"), dict):
            return "a tool_use block without name or input"
        return None
    if kind == "tool_result":
        if role != "user":
            return "a tool_result block in an assistant message"
        if not isinstance(block.get("tool_use_id"), str):  # unknown ids are dropped as unanswerable
            return "a tool_result block without a tool_use_id"
        if "is_error" in block and not isinstance(block["is_error"], bool):
            return "a tool_result block with a bad is_error"
        inner = block.get("content")
        if inner is None or isinstance(inner, str):
            return None
        if not isinstance(inner, list) or any(_block_problem(item, "user") for item in inner):
            return "a tool_result block with bad content"
        return None
    if kind == "thinking":
        ok = isinstance(block.get("thinking"), str) and isinstance(block.get("signature"), str)
        return None if ok and block["signature"] else "a thinking block without its signature"
    return None
