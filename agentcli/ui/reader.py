"""MessageReader: the one reader of the engine's messages that every interactive face builds on.

It knows the SDK message vocabulary (stream events, assistant and user messages, system notices, the result) and
the bookkeeping around it: which streamed block an index belongs to, which complete message repeats a stream
already shown, which blocks a retry discarded, which errors were shown already, and what a turn cost. A face
subclasses it and says only how things look: it makes block handles (text, thinking, a tool call) and shows
prompts, notices and the end-of-turn line. ``handle`` never awaits, so a burst of deltas costs little each.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol, cast

from agentcli.ui.errors import error_hint, strip_api_prefix
from agentcli.ui.server_tools import is_server_result, server_result
from agentcli.ui.shapes import (
    AssistantMessage,
    ContentBlock,
    ResultMessage,
    SdkMessage,
    StreamEvent,
    UserMessage,
)

INTERRUPTED = "Interrupted by user"
INTERRUPT_MARKER = "[Request interrupted by user"
STOP_HOOK_FEEDBACK = "Stop hook feedback:"
REPLAY_NOTICE = "Resumed a session with {count} messages."


class TextHandle(Protocol):
    def append(self, fragment: str) -> None: ...

    def finish(self) -> None: ...


class ThinkingHandle(Protocol):
    def append(self, fragment: str) -> None: ...

    def finish(self, text: str | None = None) -> None: ...


class ToolHandle(Protocol):
    """One tool call as a face shows it, from its first streamed byte to its result."""

    def append_input_json(self, fragment: str) -> None: ...

    def input_complete(self, tool_input: dict[str, Any] | None = None) -> None: ...

    def start(self, tool_input: dict[str, Any] | None = None) -> None: ...

    def progress(self, elapsed: float, output: str) -> None: ...

    def finished(self, is_error: bool, duration_ms: int | None = None) -> None: ...

    def set_result(self, block: dict[str, Any], structured: dict[str, Any] | None) -> None: ...

    def show_output(self) -> None:
        """The user ran this command themselves (``!cmd``): its output is what they asked to see, so the face shows
        it, not only a line that counts it."""


@dataclass(frozen=True)
class TurnEnd:
    """What one prompt took: shown as the end-of-turn line."""

    seconds: float
    requests: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    session_cost_usd: float
    interrupted: bool
    errors: tuple[str, ...]

    def line(self) -> str:
        tokens = f"↑ {self.input_tokens:,} ↓ {self.output_tokens:,} tokens"
        requests = f"{self.requests} request{'' if self.requests == 1 else 's'}"
        return (
            f"✻ {self.seconds:.1f} s · {requests} · {tokens} · ${self.cost_usd:.4f} "
            f"(session ${self.session_cost_usd:.4f})"
        )


def user_text(content: Any) -> str | None:
    """What a person typed, from a user message's content (None for tool results)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        texts = [
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict)
            and b.get("type") == "text"
            and not str(b.get("text", "")).startswith("<system-reminder>")
        ]
        attached = [b for b in content if isinstance(b, dict) and b.get("type") == "image"]
        if attached:
            texts.append(f"[{len(attached)} image{'s' if len(attached) != 1 else ''}]")
        if texts:
            return "\n".join(texts)
    return None


def streamed_input(parts: list[str]) -> dict[str, Any] | None:
    """A tool call's input from its streamed JSON fragments (None while it does not parse to an object)."""
    if not parts:
        return None
    try:
        parsed = json.loads("".join(parts))
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def history_messages(params: list[dict[str, Any]]) -> list[SdkMessage]:
    """The engine's history (API message params) as the SDK messages a face replays."""
    out: list[SdkMessage] = []
    for index, param in enumerate(params):
        if param.get("role") == "assistant":
            out.append({"type": "assistant", "message": {"id": f"history_{index}", **param}})
        else:
            out.append({"type": "user", "message": param})
    return out


class MessageReader:
    """Reads SDK messages and calls the face's ``new_*`` and ``show_*`` methods."""

    verbose = False

    def __init__(self) -> None:
        self._blocks: dict[int, tuple[str, Any]] = {}
        """The open streamed blocks by index: ("text" | "thinking" | "tool", the face's handle)."""
        self._streamed: set[str] = set()
        self.tools: dict[str, ToolHandle] = {}
        self._shown_errors: set[str] = set()
        self._session_cost = 0.0
        self._session_tokens = (0, 0)

    # -- what a face provides ---------------------------------------------------------------------------------------

    def new_text(self, text: str, *, streaming: bool) -> TextHandle:
        raise NotImplementedError

    def new_thinking(self, text: str, *, redacted: bool, done: bool) -> ThinkingHandle:
        raise NotImplementedError

    def new_tool(self, name: str, tool_use_id: str) -> ToolHandle:
        raise NotImplementedError

    def show_prompt(self, text: str) -> None:
        raise NotImplementedError

    def show_notice(self, text: str, kind: str = "info", detail: str = "") -> None:
        raise NotImplementedError

    def show_turn_end(self, end: TurnEnd) -> None:
        self.show_notice(end.line(), "info")

    def drop_blocks(self, blocks: list[Any]) -> None:
        """A retry threw these streamed blocks away (the face removes or marks them)."""

    def show_hooks(self, message: SdkMessage) -> None:
        """Hooks ran for one event; by default only failures are shown."""
        if message.get("has_errors"):
            event = message.get("hook_event") or "Hook"
            for error in message.get("errors") or [f"{event} hook failed"]:
                self.show_notice(f"{event} hook error: {error}", "error")

    def show_system_detail(self, message: SdkMessage) -> None:
        """A system message with no place in the main view (the detailed transcript shows it)."""

    def show_retry(self, message: SdkMessage) -> None:
        delay = (message.get("retry_delay_ms") or 0) / 1000
        why = message.get("error_status") or message.get("error") or ""
        line = f"  ⎿  Retrying in {delay:.1f} s · attempt {message.get('attempt')}/{message.get('max_retries')}"
        self.show_notice(f"{line} ({why})" if why else line, "warning")

    def show_error(self, text: str) -> None:
        """An error, once per turn, with what to do about it."""
        if text in self._shown_errors:
            return
        self._shown_errors.add(text)
        self.show_notice(text, "error", detail=error_hint(text))

    # -- bookkeeping ------------------------------------------------------------------------------------------------

    def set_session_cost(self, cost: float, tokens: tuple[int, int] = (0, 0)) -> None:
        """What was spent before this face started reading (a resumed session), so turns show their own share."""
        self._session_cost = cost
        self._session_tokens = tokens

    def reset(self) -> None:
        """Forget everything (another session is about to be shown)."""
        self._blocks = {}
        self._streamed.clear()
        self.tools.clear()
        self._shown_errors.clear()
        self._session_cost = 0.0
        self._session_tokens = (0, 0)

    def is_open(self, handle: object) -> bool:
        """True while ``handle`` is a block of the message being streamed."""
        return any(handle is open_handle for _kind, open_handle in self._blocks.values())

    def replay(self, params: list[dict[str, Any]]) -> None:
        """A resumed conversation's history, shown as finished blocks."""
        for message in history_messages(params):
            self.handle(message)

    # -- the dispatch -----------------------------------------------------------------------------------------------

    def handle(self, message: SdkMessage) -> None:
        """Show one SDK message (stream events included)."""
        if message.get("parent_tool_use_id"):
            return  # a sub-agent's turn: its progress shows under its Task call, its transcript is its own
        kind = message.get("type")
        if kind == "stream_event":
            self._stream_event(cast(StreamEvent, message.get("event") or {}))
        elif kind == "assistant":
            self._assistant(cast(AssistantMessage, message))
        elif kind == "user":
            self._user(cast(UserMessage, message))
        elif kind == "system":
            self._system(message)
        elif kind == "result":
            self._result(cast(ResultMessage, message))

    def _stream_event(self, event: StreamEvent) -> None:
        kind = event.get("type")
        if kind == "content_block_delta":
            _kind, block = self._blocks.get(event.get("index", -1), ("", None))
            if block is None:
                return
            delta = event.get("delta") or {}
            delta_type = delta.get("type")
            if delta_type == "text_delta":
                block.append(delta.get("text", ""))
            elif delta_type == "thinking_delta":
                block.append(delta.get("thinking", ""))
            elif delta_type == "input_json_delta":
                block.append_input_json(delta.get("partial_json", ""))
        elif kind == "content_block_start":
            self._block_start(event.get("index", 0), event.get("content_block") or {})
        elif kind == "content_block_stop":
            kind_of, block = self._blocks.get(event.get("index", -1), ("", None))
            if kind_of == "text":
                block.finish()
            elif kind_of == "tool":
                block.input_complete()
        elif kind == "message_start":
            message_id = (event.get("message") or {}).get("id")
            if message_id:
                self._streamed.add(str(message_id))
            self._blocks = {}

    def _block_start(self, index: int, block: ContentBlock) -> None:
        kind = block.get("type")
        if kind == "text":
            self._blocks[index] = ("text", self.new_text(str(block.get("text") or ""), streaming=True))
        elif kind in ("thinking", "redacted_thinking"):
            self._blocks[index] = (
                "thinking",
                self.new_thinking(str(block.get("thinking") or ""), redacted=kind == "redacted_thinking", done=False),
            )
        elif kind in ("tool_use", "server_tool_use"):
            self._blocks[index] = ("tool", self._tool(str(block.get("name", "?")), str(block.get("id", ""))))
        elif is_server_result(block):
            self._server_result(block)

    def _server_result(self, block: ContentBlock) -> None:
        """The API ran the tool itself: its result comes in the assistant message, whole."""
        tool = self.tools.get(str(block.get("tool_use_id")))
        if tool is not None:
            result, structured = server_result(block)
            tool.set_result(result, structured)

    def _tool(self, name: str, tool_use_id: str) -> ToolHandle:
        handle = self.tools[tool_use_id] = self.new_tool(name, tool_use_id)
        return handle

    def _assistant(self, message: AssistantMessage) -> None:
        body = message.get("message") or {}
        content = [b for b in body.get("content") or [] if isinstance(b, dict)]
        if message.get("isApiErrorMessage"):
            text = "".join(str(b.get("text", "")) for b in content if b.get("type") == "text")
            self.show_error(strip_api_prefix(text) or "API error")
            return
        if str(body.get("id")) in self._streamed:
            for index, block in enumerate(content):
                kind, handle = self._blocks.get(index, ("", None))
                if kind == "text":
                    handle.finish()
                elif kind == "thinking":
                    handle.finish(block.get("thinking"))
                elif kind == "tool":
                    handle.input_complete(block.get("input"))
            self._blocks = {}
            return
        for block in content:
            kind = block.get("type")
            if kind == "text" and block.get("text"):
                handle = self.new_text(str(block["text"]), streaming=False)
                handle.finish()
            elif kind in ("thinking", "redacted_thinking"):
                self.new_thinking(str(block.get("thinking") or ""), redacted=kind == "redacted_thinking", done=True)
            elif kind in ("tool_use", "server_tool_use"):
                self._tool(str(block.get("name", "?")), str(block.get("id", ""))).input_complete(
                    block.get("input") or {}
                )
            elif is_server_result(block):
                self._server_result(block)

    def _user(self, message: UserMessage) -> None:
        content = (message.get("message") or {}).get("content")
        if message.get("isCompactSummary"):
            # What the conversation continues from after a compaction: the boundary notice already said so.
            if self.verbose:
                self.show_notice(
                    "The summary the conversation continues from:", "info", detail=user_text(content) or ""
                )
            return
        if message.get("isMeta"):
            text = user_text(content) or ""
            if text.startswith(STOP_HOOK_FEEDBACK):
                self.show_notice(
                    "A Stop hook sent the agent back to work",
                    "warning",
                    detail=text.removeprefix(STOP_HOOK_FEEDBACK).strip(),
                )
            elif self.verbose:
                self.show_notice("Added to the conversation by agentcli:", "info", detail=text)
            return
        if isinstance(content, list):
            results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
            structured = message.get("tool_use_result") if len(results) == 1 else None
            for block in results:
                tool = self.tools.get(str(block.get("tool_use_id")))
                if tool is not None:
                    tool.set_result(dict(block), structured if isinstance(structured, dict) else None)
            if results:
                return
        text = user_text(content)
        if text is not None and text.startswith(INTERRUPT_MARKER):
            return  # the engine's note for the model; the result already says "Interrupted"
        if text is not None:
            self._shown_errors.clear()
            self.show_prompt(text)

    def _system(self, message: SdkMessage) -> None:
        subtype = message.get("subtype")
        tool = self.tools.get(str(message.get("tool_use_id")))
        if subtype == "tool_started":
            if tool is None:
                tool = self._tool(str(message.get("tool_name", "?")), str(message.get("tool_use_id", "")))
            tool.start(message.get("tool_input"))
        elif subtype == "tool_progress":
            if tool is not None:
                tool.progress(float(message.get("elapsed_time_seconds") or 0), str(message.get("output") or ""))
        elif subtype == "tool_finished":
            if tool is not None:
                tool.finished(bool(message.get("is_error")), message.get("duration_ms"))
        elif subtype == "stream_discarded":
            dropped = [handle for _kind, handle in self._blocks.values()]
            self.tools = {key: tool for key, tool in self.tools.items() if tool not in dropped}
            self._blocks = {}
            self.drop_blocks(dropped)
            self.show_notice("(a partial answer was discarded; retrying)", "info")
        elif subtype == "warning":
            self.show_notice(f"⚠ {message.get('message', '')}", "warning")
        elif subtype == "compact_boundary":
            self.show_notice("── earlier messages were summarised to free context ──", "info")
        elif subtype in ("hook_summary", "stop_hook_summary"):
            self.show_hooks(message)
        elif subtype == "api_retry":
            self.show_retry(message)
        else:
            self.show_system_detail(message)

    def _result(self, message: ResultMessage) -> None:
        errors = tuple(str(e) for e in message.get("errors") or [])
        interrupted = INTERRUPTED in errors
        if interrupted:
            self.show_notice("⎿  Interrupted · tell agentcli what to do instead", "warning")
        for error in errors:
            if error != INTERRUPTED:
                self.show_error(error)
        total = float(message.get("total_cost_usd") or 0)
        usage = message.get("usage") or {}
        tokens_in = sum(
            int(usage.get(key) or 0)
            for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        )
        tokens_out = int(usage.get("output_tokens") or 0)
        before_in, before_out = self._session_tokens
        end = TurnEnd(
            seconds=(message.get("duration_ms") or 0) / 1000,
            requests=int(message.get("num_turns") or 0),
            input_tokens=max(0, tokens_in - before_in),
            output_tokens=max(0, tokens_out - before_out),
            cost_usd=max(0.0, total - self._session_cost),
            session_cost_usd=total,
            interrupted=interrupted,
            errors=errors,
        )
        self._session_cost = total
        self._session_tokens = (tokens_in, tokens_out)
        self.show_turn_end(end)
