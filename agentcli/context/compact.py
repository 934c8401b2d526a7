"""The compaction chain: the check before every request, microcompact, auto-compact, reactive and manual
compaction, and the circuit breaker that stops a compaction that keeps failing from costing a request per turn.

Order before a request (cheapest first): past the microcompact threshold, old tool results are cleared; past the
auto-compact threshold (or the blocking limit, whatever the setting), the model summarises the history; past the
blocking limit after that, nothing is sent and the user gets a clear error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentcli.api.accumulate import MessageAccumulator
from agentcli.api.client import ModelClient, ModelRequest
from agentcli.api.errors import ApiError
from agentcli.api.retry import AttemptLoop, Retrying, RetryPolicy
from agentcli.context.compact_messages import (
    continuation_message,
    drop_oldest,
    summary_request_messages,
    summary_text,
    tail_start,
    user_prompts,
)
from agentcli.context.conversation import Conversation
from agentcli.context.microcompact import microcompact
from agentcli.context.thresholds import Thresholds, thresholds
from agentcli.context.tokens import context_window, estimate_message, estimate_system, estimate_tools
from agentcli.context.user_context import prepend_user_context
from agentcli.events import Compacted, LoopEvent, Notice
from agentcli.tools.base import ToolEnv

if TYPE_CHECKING:
    from agentcli.hooks.runner import HookRunner

Message = dict[str, Any]

MAX_CONSECUTIVE_FAILURES = 3
MIN_SAVING = 0.10
"""A compaction that frees less than this share turns auto-compact off for the session (it would run every turn)."""
SUMMARY_ATTEMPTS = 3
DROP_STEP = 0.25
TAIL_SHARE = 10
"""The kept tail gets at most a tenth of the window."""
CARRY_OVER_SHARE = 20
"""The user's own messages and the files read again each get at most a twentieth of the window."""
CARRY_OVER_CAP = 10_000


@dataclass(frozen=True)
class ContextSettings:
    """What settings say about context management (``autoCompact``, ``autoCompactPercent``, ``contextWindow``)."""

    auto_compact: bool = True
    auto_compact_percent: float | None = None
    context_window: int | None = None


class ContextFull(Exception):
    """The next request cannot fit the model's context window, and compaction could not make it fit."""


class _SummaryFailed(Exception):
    pass


class Compactor:
    """One session's compaction state; the loop calls :meth:`before_request`, faces call :meth:`compact`."""

    def __init__(
        self,
        client: ModelClient,
        retry_policy: RetryPolicy,
        tool_env: ToolEnv,
        settings: ContextSettings | None = None,
        *,
        hooks: HookRunner | None = None,
        user_context: str | None = None,
    ) -> None:
        self.client = client
        self.retry_policy = retry_policy
        self.tool_env = tool_env
        self.settings = settings or ContextSettings()
        self.hooks = hooks
        self.user_context = user_context
        """Environment and memory files (:mod:`agentcli.context.user_context`), put back at the head of every new
        history so the rules survive the compaction in the form they first arrived."""
        self.auto_enabled = self.settings.auto_compact
        self.failures = 0
        self.count = 0
        """Compactions that succeeded in this session."""
        self._walked: tuple[int, int, int, int] | None = None
        """After the last microcompact pass: conversation generation, message count, large results left, and the
        message holding the first of them."""

    @property
    def broken(self) -> bool:
        """The circuit breaker: after this many failures in a row, compaction is not tried again by itself."""
        return self.failures >= MAX_CONSECUTIVE_FAILURES

    def window(self, model: str) -> int:
        return context_window(model, self.settings.context_window)

    def limits(self, model: str, max_tokens: int) -> Thresholds:
        return thresholds(self.window(model), max_tokens, self.settings.auto_compact_percent)

    async def before_request(self, conversation: Conversation, request: ModelRequest) -> AsyncIterator[LoopEvent]:
        """Make room for ``request`` (whose messages are ``conversation``'s) if it needs it; raises
        :class:`ContextFull` when it cannot fit."""
        overhead = estimate_system(request.system) + estimate_tools(request.tools)
        limits = self.limits(request.model, request.max_tokens)
        tokens = conversation.context_tokens(overhead)
        if tokens < limits.microcompact:
            return
        start = self._microcompact_start(conversation, limits.microcompact_min_saving)
        if start is not None:
            cleared = microcompact(conversation.messages, limits.microcompact_min_saving, start)
            if cleared.cleared:
                conversation.replace(cleared.messages)
                tokens = conversation.context_tokens(overhead)
                yield Notice(
                    "microcompact",
                    {"cleared_results": cleared.cleared, "tokens_saved": cleared.tokens_saved, "tokens": tokens},
                )
            self._walked = (
                conversation.generation,
                len(conversation.messages),
                cleared.large_tokens,
                cleared.first_large,
            )
        wanted = (tokens >= limits.auto_compact and self.auto_enabled) or tokens >= limits.blocking
        if wanted and not self.broken:
            async for event in self.compact(conversation, request, "auto"):
                yield event
            tokens = conversation.context_tokens(overhead)
        if tokens >= limits.blocking:
            raise ContextFull(self._full_message(tokens, limits))

    def _microcompact_start(self, conversation: Conversation, min_saving: int) -> int | None:
        """Where a microcompact pass should start, or None when it could not save enough: the large results the
        last pass left plus everything appended since bound what clearing could save, so a long history is not
        walked every turn for nothing, and the part the last pass found cleared is not walked again."""
        if self._walked is None:
            return 0
        generation, length, large, first_large = self._walked
        if generation != conversation.generation or length > len(conversation.messages):
            return 0
        added = sum(conversation.size_of(index) for index in range(length, len(conversation.messages)))
        if large + added < min_saving:
            return None
        return max(0, min(first_large, length) - 1)

    def _full_message(self, tokens: int, limits: Thresholds) -> str:
        why = (
            f"compaction failed {self.failures} times in a row and is paused"
            if self.broken
            else "compaction could not make it fit"
        )
        return (
            f"The conversation is too long for the model (about {tokens:,} tokens; requests stop at "
            f"{limits.blocking:,} of a {limits.window:,}-token window) and {why}. Nothing was sent. "
            "Run /compact to try again, or /clear to start a new session."
        )

    async def compact(
        self, conversation: Conversation, request: ModelRequest, trigger: str, focus: str | None = None
    ) -> AsyncIterator[LoopEvent]:
        """Summarise ``conversation`` and replace its history. Success yields :class:`Compacted` (and bumps
        ``conversation.generation``); failure yields a warning and counts towards the breaker."""
        overhead = estimate_system(request.system) + estimate_tools(request.tools)
        pre_tokens = conversation.context_tokens(overhead)
        outcome = None
        if self.hooks is not None and self.hooks.has("PreCompact"):
            outcome = await self.hooks.run(
                "PreCompact", {"trigger": trigger, "custom_instructions": focus}, match_value=trigger
            )
            blocked = outcome.blocking
            if blocked:  # exit 2 or `decision: "block"`: no compaction this time, as in Claude Code
                reasons = "; ".join(f"{message} [{command}]" for command, message in blocked)
                yield Notice(
                    "warning", {"level": "warning", "message": f"A PreCompact hook blocked compaction: {reasons}"}
                )
                return
            # What the hooks print (plain text, exit 0) joins the instructions, as in Claude Code.
            extra = [r.stdout.strip() for r in outcome.results if r.exit_code == 0 and r.output is None]
            focus = "\n\n".join(text for text in [focus, *extra] if text) or None
        yield Notice("status", {"status": "compacting"})
        limits = self.limits(request.model, request.max_tokens)
        try:
            summary, usage = await self._summarise(conversation.messages, request, limits, overhead, focus)
        except (ApiError, _SummaryFailed) as exc:
            self.failures += 1
            yield Notice("status", {"status": None})
            yield Notice("warning", {"level": "warning", "message": self._failure_message(exc)})
            return
        messages = self._rebuild(conversation.messages, summary, limits)
        conversation.replace(messages)
        post_tokens = conversation.context_tokens(overhead)
        self.failures = 0
        self.count += 1
        yield Notice("status", {"status": None})
        yield Compacted(trigger, pre_tokens, post_tokens, list(messages), usage, outcome)
        if trigger == "auto" and post_tokens > pre_tokens * (1 - MIN_SAVING) and self.auto_enabled:
            self.auto_enabled = False
            yield Notice(
                "warning",
                {
                    "level": "warning",
                    "message": (
                        f"Compaction freed little room ({pre_tokens:,} → {post_tokens:,} tokens); automatic "
                        "compaction is off for this session. /compact still works."
                    ),
                },
            )

    def _failure_message(self, exc: Exception) -> str:
        reason = exc.message if isinstance(exc, ApiError) else str(exc)
        if self.broken:
            return (
                f"Compaction failed ({reason}). It failed {self.failures} times in a row, so agentcli stops "
                "trying by itself; run /compact to try again, or /clear to start a new session."
            )
        return f"Compaction failed ({reason}); the conversation is unchanged."

    async def _summarise(
        self, messages: list[Message], request: ModelRequest, limits: Thresholds, overhead: int, focus: str | None
    ) -> tuple[str, tuple[str, dict[str, Any]] | None]:
        """The model's summary of ``messages``: the same system, tools and history as the loop's requests (so it
        reads them from the cache), with the oldest part left out when even that does not fit."""
        history = list(messages)
        room = limits.effective - overhead
        while len(history) > 1 and sum(estimate_message(m) for m in history) > room:
            shorter = drop_oldest(history, DROP_STEP)
            if len(shorter) >= len(history):
                break
            history = shorter
        for _attempt in range(SUMMARY_ATTEMPTS):
            summary_request = dataclasses.replace(request, messages=summary_request_messages(history, focus))
            try:
                response = await self._ask(summary_request)
            except ApiError as exc:
                if not exc.is_prompt_too_long or len(history) <= 1:
                    raise
                history = drop_oldest(history, DROP_STEP)
                continue
            text = summary_text(response["content"])
            if not text:
                raise _SummaryFailed("the model returned no summary")
            model = str(response.get("model") or request.model)
            return text, (model, response.get("usage") or {})
        raise _SummaryFailed("the history is too long to summarise")

    async def _ask(self, request: ModelRequest) -> Message:
        accumulator = MessageAccumulator()
        async for event in AttemptLoop(self.client, self.retry_policy).stream(request):
            if type(event) is dict:
                accumulator.feed(event)
            elif isinstance(event, Retrying) or getattr(event, "discard", False):
                accumulator = MessageAccumulator()
        return accumulator.message()

    def _rebuild(self, messages: list[Message], summary: str, limits: Thresholds) -> list[Message]:
        """The new history: the summary with what must survive it, then the last few messages as they were."""
        start = tail_start(messages, limits.window // TAIL_SHARE)
        tail = messages[start:]
        state = self.tool_env.state
        first = continuation_message(
            summary,
            user_prompts(messages[:start]),
            todos=list(state.todos),
            read_files=list(state.read_files),
            tail=tail,
            budget_tokens=min(CARRY_OVER_CAP, limits.window // CARRY_OVER_SHARE),
        )
        return prepend_user_context([first, *tail], self.user_context)
