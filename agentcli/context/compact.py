"""The compaction chain: the check before every request, microcompact, auto-compact, reactive and manual
compaction, and the circuit breaker that stops a compaction that keeps failing from costing a request per turn.

Order before a request (cheapest first): past the microcompact threshold, old tool results are cleared; past the
auto-compact threshold (or the blocking limit, whatever the setting), the model summarises the history; past the
blocking limit after that, nothing is sent and the user gets a clear error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentcli.api.accumulate import MessageAccumulator
from agentcli.api.client import ModelClient, ModelRequest
from agentcli.api.errors import ApiError
from agentcli.api.retry import AttemptLoop, Retrying, RetryPolicy
from agentcli.context.compact_messages import (
    continuation_message,
    pending_prompt,
    summary_request_messages,
    summary_text,
    tail_start,
    user_prompts,
)
from agentcli.context.conversation import Conversation
from agentcli.context.fit import Fitted, Refusal, fit_history, refusal_sizes
from agentcli.context.microcompact import microcompact
from agentcli.context.reattach import invoked_skills
from agentcli.context.thresholds import Thresholds, thresholds
from agentcli.context.tokens import (
    LARGE_CONTEXT_WINDOW,
    context_window,
    estimate_message,
    estimate_system,
    estimate_tools,
    wants_large_context,
)
from agentcli.context.user_context import is_user_context_block, prepend_user_context
from agentcli.events import Compacted, LoopEvent, Notice
from agentcli.tools.base import ToolEnv

if TYPE_CHECKING:
    from agentcli.hooks.runner import HookOutcome, HookRunner

Message = dict[str, Any]

MAX_CONSECUTIVE_FAILURES = 3
MIN_SAVING = 0.10
"""A compaction that frees less than this share turns auto-compact off for the session (it would run every turn)."""
SUMMARY_ATTEMPTS = 3
SUMMARY_MAX_TOKENS = 20_000
SUMMARY_SHARE = 0.3
"""Of the compaction target (:attr:`Thresholds.compact_target`): the summary's answer limit. The user's own
messages, the files read again and the kept tail get ``PART_SHARE`` each; headers and todos fit in the rest."""
PART_SHARE = 0.2
UNKNOWN_SHRINK = 0.75
"""A refused summary request whose answer names no sizes: the next one holds at most this share of it."""


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
        permission_mode: Callable[[], str] = lambda: "default",
    ) -> None:
        self.client = client
        self.retry_policy = retry_policy
        self.tool_env = tool_env
        self.settings = settings or ContextSettings()
        self.hooks = hooks
        self.user_context = user_context
        """Environment and memory files (:mod:`agentcli.context.user_context`), put back at the head of every new
        history so the rules survive the compaction in the form they first arrived."""
        self.permission_mode = permission_mode
        """The session's mode as it is now (plan mode is put back after a compaction)."""
        self.auto_enabled = self.settings.auto_compact
        self.failures = 0
        self.count = 0
        """Compactions that succeeded in this session."""
        self.server_windows: dict[str, int] = {}
        """The maximum a prompt-too-long answer named, by model: it overrides a larger configured window."""
        self._walked: tuple[int, int, int, int] | None = None
        """After the last microcompact pass: conversation generation, message count, large results left, and the
        message holding the first of them."""

    @property
    def broken(self) -> bool:
        """The circuit breaker: after this many failures in a row, compaction is not tried again by itself."""
        return self.failures >= MAX_CONSECUTIVE_FAILURES

    def window(self, model: str) -> int:
        configured = context_window(model, self.settings.context_window)
        return min(configured, self.server_windows.get(model, configured))

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

    def prompt_refusal(self, prompt: Message, request: ModelRequest) -> str | None:
        """Why ``prompt`` cannot be sent at all, or None: it would not fit the model's window even with nothing
        else in the history. Asked before the prompt joins the history, so that no request carries it and no
        compaction cuts it down; ``request`` gives the model, system prompt and tools it would go with."""
        limits = self.limits(request.model, request.max_tokens)
        overhead = estimate_system(request.system) + estimate_tools(request.tools)
        size = estimate_message(prompt)
        room = limits.blocking - overhead
        if size < room:
            return None
        content = prompt.get("content")
        typed = [content] if isinstance(content, str) else [b for b in content or [] if not is_user_context_block(b)]
        chars = sum(len(b) if isinstance(b, str) else len(str(b.get("text", ""))) for b in typed)
        larger = (
            ""
            if wants_large_context(request.model) or limits.window >= LARGE_CONTEXT_WINDOW
            else f", or use the model's 1M-token window ({request.model}[1m]) where your plan has it"
        )
        return (
            f"This prompt is too long to send: about {size:,} tokens ({chars:,} characters), and a prompt to "
            f"{request.model} can hold at most about {room:,} (a {limits.window:,}-token window, less the system "
            "prompt, the tools and room for the answer). Nothing was sent, and the prompt is not in the "
            "conversation. Save the text to a file and ask for it to be read in parts, or send a shorter "
            f"excerpt{larger}."
        )

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
        self,
        conversation: Conversation,
        request: ModelRequest,
        trigger: str,
        focus: str | None = None,
        *,
        refused: tuple[int, int] | None = None,
    ) -> AsyncIterator[LoopEvent]:
        """Summarise ``conversation`` and replace its history. Success yields :class:`Compacted` (and bumps
        ``conversation.generation``); failure yields a warning and counts towards the breaker; a result that would
        not shrink the context is not applied. ``refused``: the sizes a prompt-too-long answer to ``request``
        named (tokens counted, maximum), so the summary request is built to fit."""
        overhead = estimate_system(request.system) + estimate_tools(request.tools)
        pre_tokens = conversation.context_tokens(overhead)
        before = overhead + sum(conversation.size_of(index) for index in range(len(conversation.messages)))
        refusal = None
        if refused is not None:
            refusal = Refusal(*refused, overhead + sum(estimate_message(m) for m in request.messages))
            self.server_windows[request.model] = min(refused[1], self.window(request.model))
        outcome, focus, blocked = await self._pre_compact(trigger, focus)
        if blocked is not None:
            yield _warning(f"A PreCompact hook blocked compaction: {blocked}")
            return
        limits = self.limits(request.model, request.max_tokens)
        if self._rebuilt(conversation.messages, "", limits, overhead, before) is None:
            # Even an empty summary would not make it smaller (a short history): no request for nothing.
            for event in self._not_applied(trigger, "the history is already about as short as a summary"):
                yield event
            return
        yield Notice("status", {"status": "compacting"})
        try:
            summary, usage, fitted = await self._summarise(conversation.messages, request, limits, focus, refusal)
        except (ApiError, _SummaryFailed) as exc:
            self.failures += 1
            yield Notice("status", {"status": None})
            yield _warning(self._failure_message(exc))
            return
        yield Notice("status", {"status": None})
        if fitted.left_out or fitted.trimmed:
            yield _warning(
                f"To fit the model, the summary request left out the {fitted.left_out} oldest messages and "
                f"trimmed {fitted.trimmed} oversized parts; the summary covers the rest, and your own messages "
                "are carried over as you wrote them."
            )
        rebuilt = self._rebuilt(conversation.messages, summary, limits, overhead, before)
        if rebuilt is None:
            for event in self._not_applied(trigger, "the summary would not make the context smaller", failed=True):
                yield event
            return
        messages, compacted = rebuilt
        if compacted > limits.compact_target:
            reason = (
                f"the summary came back too long (the compacted history would hold about {compacted:,} tokens; "
                f"at most {limits.compact_target:,})"
            )
            for event in self._not_applied(trigger, reason, failed=True):
                yield event
            return
        conversation.replace(messages)
        self._forget_memory_left_out(messages)
        post_tokens = conversation.context_tokens(overhead)
        self.failures = 0
        self.count += 1
        yield Compacted(trigger, pre_tokens, post_tokens, list(messages), usage, outcome)
        if trigger == "auto" and post_tokens > pre_tokens * (1 - MIN_SAVING) and self.auto_enabled:
            self.auto_enabled = False
            yield _warning(
                f"Compaction freed little room ({pre_tokens:,} → {post_tokens:,} tokens); automatic "
                "compaction is off for this session. /compact still works."
            )

    async def _pre_compact(self, trigger: str, focus: str | None) -> tuple[HookOutcome | None, str | None, str | None]:
        """PreCompact hooks: their outcome, the instructions with what they printed (plain text, exit 0, as in
        Claude Code), and why they blocked compaction (exit 2 or ``decision: "block"``), if they did."""
        if self.hooks is None or not self.hooks.has("PreCompact"):
            return None, focus, None
        outcome = await self.hooks.run(
            "PreCompact", {"trigger": trigger, "custom_instructions": focus}, match_value=trigger
        )
        if outcome.blocking:
            return outcome, focus, "; ".join(f"{message} [{command}]" for command, message in outcome.blocking)
        extra = [r.stdout.strip() for r in outcome.results if r.exit_code == 0 and r.output is None]
        return outcome, "\n\n".join(text for text in [focus, *extra] if text) or None, None

    def _not_applied(self, trigger: str, reason: str, *, failed: bool = False) -> list[LoopEvent]:
        """Say why a compaction was not applied; an automatic one that cannot help is not tried again by itself,
        and one that asked the model for nothing counts towards the breaker."""
        if failed:
            self.failures += 1
        message = f"Compaction not applied: {reason}; the conversation is unchanged."
        if trigger == "auto" and self.auto_enabled:
            self.auto_enabled = False
            message += " Automatic compaction is off for this session; /compact still works."
        return [_warning(message)]

    def _failure_message(self, exc: Exception) -> str:
        reason = exc.message if isinstance(exc, ApiError) else str(exc)
        if self.broken:
            return (
                f"Compaction failed ({reason}). It failed {self.failures} times in a row, so agentcli stops "
                "trying by itself; run /compact to try again, or /clear to start a new session."
            )
        return f"Compaction failed ({reason}); the conversation is unchanged."

    async def _summarise(
        self,
        messages: list[Message],
        request: ModelRequest,
        limits: Thresholds,
        focus: str | None,
        refusal: Refusal | None,
    ) -> tuple[str, tuple[str, dict[str, Any]] | None, Fitted]:
        """The model's summary of ``messages``: the same system, tools and history as the loop's requests (so it
        reads them from the cache), cut down (:mod:`agentcli.context.fit`) where that would not fit the window
        or, after a refusal, what the server said it takes."""
        overhead = estimate_system(request.system) + estimate_tools(request.tools)
        answer = min(request.max_tokens, SUMMARY_MAX_TOKENS, int(limits.compact_target * SUMMARY_SHARE))
        thinking = request.thinking
        if thinking is not None and int(thinking.get("budget_tokens") or 0) >= answer:
            thinking = None  # a thinking budget must stay below max_tokens
        instruction = estimate_message(summary_request_messages([], focus)[-1])
        room = refusal.room(answer) if refusal is not None else min(limits.effective, limits.window - answer)
        for _attempt in range(SUMMARY_ATTEMPTS):
            fitted = fit_history(messages, room - overhead - instruction)
            if fitted is None:
                raise _SummaryFailed("even the latest messages are too long for a summary request")
            summary_request = dataclasses.replace(
                request,
                max_tokens=answer,
                thinking=thinking,
                messages=summary_request_messages(fitted.messages, focus),
            )
            try:
                response = await self._ask(summary_request)
            except ApiError as exc:
                if not exc.is_prompt_too_long:
                    raise
                sent = overhead + sum(estimate_message(m) for m in summary_request.messages)
                sizes = refusal_sizes(exc.message)
                if sizes is not None:
                    self.server_windows[request.model] = min(sizes[1], self.window(request.model))
                room = min(sent - 1, Refusal(*sizes, sent).room(answer) if sizes else int(sent * UNKNOWN_SHRINK))
                continue
            text = summary_text(response["content"])
            if not text:
                raise _SummaryFailed("the model returned no summary")
            if response.get("stop_reason") == "max_tokens":
                text += "\n\n[This summary was cut at its length limit.]"
            model = str(response.get("model") or request.model)
            return text, (model, response.get("usage") or {}), fitted
        raise _SummaryFailed("the history is too long to summarise")

    async def _ask(self, request: ModelRequest) -> Message:
        accumulator = MessageAccumulator()
        async for event in AttemptLoop(self.client, self.retry_policy).stream(request):
            if type(event) is dict:
                accumulator.feed(event)
            elif isinstance(event, Retrying) or getattr(event, "discard", False):
                accumulator = MessageAccumulator()
        return accumulator.message()

    def _rebuilt(
        self, messages: list[Message], summary: str, limits: Thresholds, overhead: int, before: int
    ) -> tuple[list[Message], int] | None:
        """The new history and what its compacted part holds (without the user context and a prompt still to be
        answered), with the longest kept tail that makes the context smaller than ``before``; None if none does."""
        part = int(limits.compact_target * PART_SHARE)
        for tail_budget in (part, 0):
            messages_after, compacted = self._rebuild(messages, summary, tail_budget, part)
            if overhead + sum(estimate_message(m) for m in messages_after) < before:
                return messages_after, compacted
        return None

    def _rebuild(self, messages: list[Message], summary: str, tail_budget: int, part: int) -> tuple[list[Message], int]:
        """The summary with what must survive it, then the last few messages as they were (always the prompt
        still waiting for its answer)."""
        pinned = pending_prompt(messages)
        start = tail_start(messages, tail_budget, pinned=pinned)
        tail = messages[start:]
        state = self.tool_env.state
        first = continuation_message(
            summary,
            user_prompts(messages[:start]),
            todos=list(state.todos),
            read_files=list(state.read_files),
            tail=tail,
            budget_tokens=part,
            skills=invoked_skills(messages[:start]),
            memory=list(state.memory.sent) if state.memory is not None else [],
            permission_mode=self.permission_mode(),
        )
        compacted = sum(estimate_message(m) for m in [first, *tail])
        if pinned is not None:
            compacted -= estimate_message(messages[pinned])
        return prepend_user_context([first, *tail], self.user_context), compacted

    def _forget_memory_left_out(self, messages: list[Message]) -> None:
        """Nested memory files the new history does not hold are sent again when the model next works there."""
        memory = self.tool_env.state.memory
        if memory is None or not memory.sent:
            return
        held = "".join(str(b.get("text", "")) for m in messages[:1] for b in m["content"] if isinstance(b, dict))
        memory.keep_only(lambda item: f'<memory path="{item.path}"' in held)


def _warning(message: str) -> Notice:
    return Notice("warning", {"level": "warning", "message": message})
