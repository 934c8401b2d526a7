"""The query loop: ask the model, run the tools it calls, feed the results back, until it stops asking.

An async generator with explicit state. It knows nothing of faces, transcripts or output formats: the engine
wraps it. Two loops nest here and must not be confused: the API attempt loop (``AttemptLoop``: retries,
fallback) inside one iteration, and the query iteration loop below (tools, max-tokens recovery). Every tool_use
that enters the conversation is answered, on every path.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

from agentcli.api.accumulate import MessageAccumulator
from agentcli.api.client import ModelRequest
from agentcli.api.errors import ApiError
from agentcli.api.retry import AttemptLoop, Retrying, SwitchedModel, error_category, strip_thinking
from agentcli.context.compact import ContextFull
from agentcli.context.fit import refusal_sizes
from agentcli.context.microcompact import fit_results_budget
from agentcli.events import (
    AssistantTurn,
    LoopEnded,
    LoopEvent,
    Notice,
    RequestStarted,
    ResponseWithheld,
    StreamDelta,
    ToolResults,
    UserInjected,
)
from agentcli.hooks.session_hooks import StopVerdict
from agentcli.loop.repair import assistant_param
from agentcli.loop.state import LoopState, QueryParams
from agentcli.tools.executor import StreamingToolExecutor

MAX_TOKENS_RECOVERY_LIMIT = 3
MAX_TOKENS_RECOVERY_MESSAGE = (
    "Output token limit hit. Resume directly — no apology, no recap of what you were doing. "
    "Pick up mid-thought if that is where the cut happened. Break remaining work into smaller pieces."
)


async def query(params: QueryParams) -> AsyncGenerator[LoopEvent, None]:  # noqa: C901
    """Run one user submission to its end, yielding every event on the way. The last event is :class:`LoopEnded`."""
    conversation = params.conversation
    state = LoopState(model=params.model)
    attempts = AttemptLoop(params.client, params.retry_policy)
    compactor = params.compactor
    while True:
        tools = params.registry.schemas()  # tools that arrived since (MCP servers connecting) join the next request

        def build_request(tools: list[dict[str, Any]] = tools) -> ModelRequest:
            return ModelRequest(
                model=state.model,
                max_tokens=state.max_tokens_override or params.max_tokens,
                messages=strip_thinking(conversation.messages) if state.strip_thinking else conversation.messages,
                system=params.system,
                tools=tools,
                thinking=None if state.strip_thinking else params.thinking,
                merge_text_deltas=params.merge_text_deltas,
            )

        if compactor is not None:
            try:
                async for compaction_event in compactor.before_request(conversation, build_request()):
                    yield compaction_event
            except ContextFull as exc:
                yield LoopEnded("prompt_too_long", str(exc))
                return
        yield RequestStarted(state.turn_count, state.model)
        request = build_request()
        accumulator = MessageAccumulator()
        executor = StreamingToolExecutor(params.registry, params.tool_env, params.can_use_tool)
        feed = accumulator.feed
        try:
            try:
                async for event in attempts.stream(request):
                    if type(event) is dict:
                        block = feed(event)
                        yield StreamDelta(event)
                        if block is not None and block.get("type") == "tool_use":
                            executor.add(block, accumulator.invalid_inputs.get(block["id"]))
                        if executor.has_events:
                            for tool_event in executor.take_events():
                                yield tool_event
                        continue
                    # A retry or a fallback: whatever the failed attempt streamed is void.
                    assert isinstance(event, Retrying | SwitchedModel)
                    if event.discard:
                        await executor.discard()
                        yield Notice("stream_discarded", {"reason": "retry"})
                    accumulator = MessageAccumulator()
                    feed = accumulator.feed
                    executor = StreamingToolExecutor(params.registry, params.tool_env, params.can_use_tool)
                    if isinstance(event, Retrying):
                        yield _retry_notice(event)
                    elif isinstance(event, SwitchedModel):
                        state.model = event.model
                        state.strip_thinking = True
                        yield Notice(
                            "warning",
                            {
                                "level": "warning",
                                "message": f"Switched to {event.model} due to high demand for {event.from_model}",
                                "from_model": event.from_model,
                                "model": event.model,
                            },
                        )
            except ApiError as exc:
                await executor.abort("Cancelled: the model request failed")
                if (
                    exc.is_prompt_too_long
                    and compactor is not None
                    and not compactor.broken
                    and not state.reactive_compact_attempted
                ):
                    # Withheld from the faces: compact once and send the request again.
                    state.reactive_compact_attempted = True
                    generation = conversation.generation
                    refused = refusal_sizes(exc.message)
                    async for compaction_event in compactor.compact(conversation, request, "auto", refused=refused):
                        yield compaction_event
                    if conversation.generation != generation:
                        state.transition = "reactive_compact_retry"
                        continue
                yield LoopEnded(
                    "prompt_too_long" if exc.is_prompt_too_long else "model_error",
                    _describe(exc, compacted=state.reactive_compact_attempted),
                    exc.status,
                )
                return

            response = accumulator.message()
            state.reactive_compact_attempted = False
            param = assistant_param(response["content"])
            has_tools = param is not None and any(b.get("type") == "tool_use" for b in param["content"])

            if response.get("stop_reason") == "max_tokens" and not has_tools:
                if state.max_tokens_override is None and params.max_tokens < params.escalated_max_tokens:
                    # Withhold the cut response and ask again with more room, once.
                    state.max_tokens_override = params.escalated_max_tokens
                    state.transition = "max_tokens_escalation"
                    yield ResponseWithheld(response, "max_tokens_escalation")
                    yield Notice("max_tokens_escalation", {"max_tokens": params.escalated_max_tokens})
                    continue
                if state.max_tokens_recoveries < MAX_TOKENS_RECOVERY_LIMIT and param is not None:
                    conversation.append(param)
                    yield AssistantTurn(response, param)
                    resume = {"role": "user", "content": [{"type": "text", "text": MAX_TOKENS_RECOVERY_MESSAGE}]}
                    conversation.append(resume)
                    yield UserInjected(resume, "max_tokens_recovery")
                    state.max_tokens_recoveries += 1
                    state.transition = "max_tokens_recovery"
                    continue

            if param is None:
                yield AssistantTurn(response, {"role": "assistant", "content": []})
                yield LoopEnded("completed")
                return
            conversation.append(param)
            yield AssistantTurn(response, param)
            if response.get("stop_reason") == "pause_turn" and not has_tools:
                # The API paused a long turn: sending it back as it is lets the model carry on where it stopped.
                state.transition = "pause_turn"
            elif not has_tools:
                verdict = await params.hooks.stop(_text(param), state.stop_hook_active) if params.hooks else None
                if verdict is None or not (verdict.prevent or verdict.feedback):
                    if verdict is not None:
                        for notice in _stop_notices(verdict):
                            yield notice
                    yield LoopEnded("completed")
                    return
                for notice in _stop_notices(verdict):
                    yield notice
                if verdict.prevent:
                    yield LoopEnded("stop_hook_prevented", verdict.stop_reason)
                    return
                state.stop_hook_blocks += 1
                assert params.hooks is not None and verdict.feedback is not None
                if (
                    state.stop_hook_blocks > params.hooks.block_cap
                ):  # the cap's worth of blocks count, as in Claude Code
                    yield Notice(
                        "warning",
                        {
                            "level": "warning",
                            "message": (
                                f"Stop hooks blocked {state.stop_hook_blocks} times in a row; ending the turn anyway"
                            ),
                        },
                    )
                    yield LoopEnded("completed")
                    return
                feedback = {"role": "user", "content": [{"type": "text", "text": verdict.feedback}]}
                conversation.append(feedback)
                yield UserInjected(feedback, "stop_hook_feedback")
                state.stop_hook_active = True
                state.transition = "stop_hook_blocking"
            else:
                async for tool_event in executor.drain():
                    yield tool_event
                finished = tuple(executor.results())
                content = fit_results_budget([item.block for item in finished], params.tool_env.scratch_dir)
                if params.hooks is not None:
                    uses = {b["id"]: b for b in param["content"] if b.get("type") == "tool_use"}
                    notes = await asyncio.gather(
                        *(params.hooks.post_tool_use(uses[f.tool_use_id], f) for f in finished)
                    )
                    content += [{"type": "text", "text": note} for group in notes for note in group]
                results = {"role": "user", "content": content}
                conversation.append(results)
                yield ToolResults(results, finished)
                if params.hooks is not None:
                    for warning in params.hooks.take_warnings():
                        yield Notice("warning", {"level": "warning", "message": warning})
                if params.hooks is not None and params.hooks.halt is not None:
                    yield LoopEnded("hook_stopped", params.hooks.halt)
                    return
        finally:
            # Closed or cancelled mid-iteration (interrupt, budget): stop every tool and its processes.
            await executor.abort()

        if params.max_turns is not None and state.turn_count >= params.max_turns:
            yield LoopEnded("max_turns")
            return
        state.turn_count += 1
        if state.transition not in ("stop_hook_blocking", "pause_turn"):
            state.transition = "tool_use"


def _text(param: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in param["content"] if block.get("type") == "text")


def _stop_notices(verdict: StopVerdict) -> list[Notice]:
    notices = [Notice("warning", {"level": "warning", "message": message}) for message in verdict.messages]
    if verdict.summary is not None:
        notices.append(Notice("stop_hook_summary", verdict.summary))
    return notices


def _retry_notice(event: Retrying) -> Notice:
    return Notice(
        "api_retry",
        {
            "attempt": event.attempt,
            "max_retries": event.max_retries,
            "retry_delay_ms": int(event.delay_s * 1000),
            "error_status": event.error.status,
            "error": error_category(event.error),
            "message": event.error.message,
        },
    )


def _describe(exc: ApiError, *, compacted: bool) -> str:
    if exc.is_prompt_too_long:
        sizes = refusal_sizes(exc.message)
        size = f" ({sizes[0]} tokens; the model takes {sizes[1]})" if sizes else ""
        tried = ", even after trying to compact it" if compacted else ""
        return (
            f"The conversation is too long for the model{size}{tried}. "
            "Run /compact with a focus to shrink it further, or /clear to start a new session."
        )
    return exc.message
