"""The query loop: ask the model, run the tools it calls, feed the results back, until it stops asking.

An async generator with explicit state. It knows nothing of faces, transcripts or output formats: the engine
wraps it. Every tool_use it lets into the conversation is answered, on every path.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from agentcli.api.accumulate import MessageAccumulator
from agentcli.api.client import ModelRequest
from agentcli.api.errors import ApiError
from agentcli.events import (
    AssistantTurn,
    LoopEnded,
    LoopEvent,
    RequestStarted,
    StreamDelta,
    ToolResults,
)
from agentcli.loop.repair import assistant_param
from agentcli.loop.state import LoopState, QueryParams
from agentcli.tools.executor import StreamingToolExecutor


async def query(params: QueryParams) -> AsyncIterator[LoopEvent]:
    """Run one user submission to its end, yielding every event on the way. The last event is :class:`LoopEnded`."""
    state = LoopState(messages=list(params.messages))
    tools = params.registry.schemas()
    while True:
        yield RequestStarted(state.turn_count, params.model)
        request = ModelRequest(
            model=params.model,
            max_tokens=params.max_tokens,
            messages=state.messages,
            system=params.system,
            tools=tools,
            thinking=params.thinking,
        )
        accumulator = MessageAccumulator()
        executor = StreamingToolExecutor(params.registry, params.tool_env, params.can_use_tool)
        feed = accumulator.feed
        try:
            try:
                async for event in params.client.stream(request):
                    block = feed(event)
                    yield StreamDelta(event)
                    if block is not None and block.get("type") == "tool_use":
                        executor.add(block, accumulator.invalid_inputs.get(block["id"]))
                    if executor.has_events:
                        for tool_event in executor.take_events():
                            yield tool_event
            except ApiError as exc:
                # The partial response never enters the conversation, so its tool calls need no answer.
                await executor.abort("Cancelled: the model request failed")
                yield LoopEnded("model_error", str(exc))
                return

            response = accumulator.message()
            param = assistant_param(response["content"])
            yield AssistantTurn(response, param or {"role": "assistant", "content": []})
            if param is None:
                yield LoopEnded("completed")
                return
            state.messages.append(param)

            if not any(block.get("type") == "tool_use" for block in param["content"]):
                yield LoopEnded("completed")
                return

            async for tool_event in executor.drain():
                yield tool_event
            finished = tuple(executor.results())
            results = {"role": "user", "content": [item.block for item in finished]}
            state.messages.append(results)
            yield ToolResults(results, finished)
        finally:
            # Closed or cancelled mid-iteration (interrupt, budget): stop every tool and its processes.
            await executor.abort()

        if params.max_turns is not None and state.turn_count >= params.max_turns:
            yield LoopEnded("max_turns")
            return
        state.turn_count += 1
        state.transition = "tool_use"
