"""QueryEngine: one session's lifecycle around the loop.

The loop runs one submission; the engine owns what outlives it: the conversation, usage and cost, budgets,
permission denials, and the final ``result``. It speaks Claude Code's SDK message shapes, so every face (and
anything that reads ``stream-json``) sees one vocabulary.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

from agentcli import sdk_messages as sdk
from agentcli.api.accumulate import MessageAccumulator
from agentcli.api.client import ModelRequest
from agentcli.context.compact import Compactor
from agentcli.context.conversation import Conversation
from agentcli.context.user_context import has_user_context, with_user_context
from agentcli.debuglog import record_exception
from agentcli.engine_config import EngineConfig, Recorder, SessionService
from agentcli.engine_endings import loop_ended
from agentcli.engine_messages import Outbox
from agentcli.engine_rejected import TAKEN_BACK, take_back
from agentcli.events import (
    AssistantTurn,
    Compacted,
    LoopEnded,
    NestedMessage,
    Notice,
    RequestStarted,
    ResponseWithheld,
    StreamDelta,
    ToolFinished,
    ToolProgress,
    ToolResults,
    ToolStarted,
    UserInjected,
)
from agentcli.loop.query import query
from agentcli.loop.repair import assistant_param, synthetic_results, unanswered_tool_uses
from agentcli.loop.state import QueryParams
from agentcli.tools.base import Tool, ToolCall
from agentcli.tools.permissions import PermissionDecision
from agentcli.tools.structured_output import STRUCTURED_OUTPUT, StructuredOutputRun
from agentcli.usage import UsageTracker

__all__ = ["INTERRUPTED_MARKER", "EngineConfig", "QueryEngine", "Recorder", "SessionService"]

Message = dict[str, Any]
INTERRUPTED_MARKER = "[Request interrupted by user]"
"""The user message that follows an interrupted turn (Claude Code's words), so the model knows it was stopped."""


class QueryEngine:
    """Owns one session. ``submit_message`` may be called again for each new prompt."""

    def __init__(self, config: EngineConfig, messages: list[Message] | None = None) -> None:
        self.config = config
        self.conversation = Conversation(list(messages or []))
        self._user_context_pending = bool(config.user_context) and not has_user_context(self.conversation.messages)
        self.session_id = config.session_id
        self.usage = UsageTracker()
        self.permission_denials: list[dict[str, Any]] = []
        self._init_sent = False
        self._session_started = False
        self._start_context: list[str] = []
        """SessionStart hooks' context, kept until a prompt is actually sent (the first may be blocked)."""
        self._task: asyncio.Task[Any] | None = None
        self._interrupted = False
        self._services_started = False
        self.outbox = Outbox(self.session_id, config, self.usage, self.permission_denials)
        self._envelope = self.outbox.envelope
        self._record = self.outbox.record
        self._hook_messages = self.outbox.hook_messages
        self._api_error = self.outbox.api_error
        self._result = self.outbox.result
        self.compactor = Compactor(
            config.client,
            config.retry_policy,
            config.tool_env,
            config.context,
            hooks=config.hooks.runner if config.hooks is not None else None,
            user_context=config.user_context,
            permission_mode=lambda: self.config.permission_mode,
        )

    @property
    def messages(self) -> list[Message]:
        """The history the next request starts from (after the last compaction); read-only for faces."""
        return self.conversation.messages

    @property
    def total_usage(self) -> dict[str, int]:
        return self.usage.total

    @property
    def total_cost_usd(self) -> float:
        return self.usage.cost_usd

    # -- permissions -----------------------------------------------------------------------------------------------

    async def can_use_tool(self, tool: Tool, tool_input: dict[str, Any], call: ToolCall) -> PermissionDecision:
        """The session's permission gate, noting each denial for the result message; its sub-agents ask it too."""
        decision = await self.config.can_use_tool(tool, tool_input, call)
        if decision.behavior != "allow":
            self.permission_denials.append(
                {"tool_name": tool.name, "tool_use_id": call.tool_use_id, "tool_input": tool_input}
            )
        return decision

    # -- message shapes --------------------------------------------------------------------------------------------

    def init_message(self) -> Message:
        return self._envelope(
            sdk.init_message(
                cwd=str(self.config.tool_env.project_dir),
                model=self.config.model,
                tools=self.config.registry.names,
                permission_mode=self.config.permission_mode,
                slash_commands=list(self.config.slash_commands),
                api_key_source=self.config.api_key_source,
                mcp_servers=self.config.mcp_servers() if self.config.mcp_servers is not None else [],
            )
        )

    # -- the lifecycle ---------------------------------------------------------------------------------------------

    def start_services(self) -> None:
        """Start the background services (MCP servers…) without waiting for any; idempotent."""
        if not self._services_started:
            self._services_started = True
            for service in self.config.services:
                service.start()

    async def aclose(self, reason: str = "other") -> None:
        """End the session: SessionEnd hooks run (``reason``: clear, logout, prompt_input_exit, other), background
        services stop, then the model client's connections are released; the engine can't submit afterwards."""
        if self.config.hooks is not None and self._session_started:
            self._session_started = False
            outcome = await self.config.hooks.session_end(reason)
            self._hook_messages(outcome)
        await asyncio.gather(*(service.aclose() for service in self.config.services), return_exceptions=True)
        await self.config.client.aclose()

    async def notify(self, message: str, title: str = "agentcli") -> None:
        """Notification hooks: faces call this when agentcli needs the user (a permission prompt, idle input)."""
        if self.config.hooks is not None:
            self._hook_messages(await self.config.hooks.notification(message, title))

    def set_permission_mode(self, mode: str) -> None:
        """Switch the permission mode for the calls still to come (shift+tab in the faces)."""
        self.config.permission_mode = mode
        if self.config.permission_policy is not None:
            self.config.permission_policy.mode = mode
        if self.config.hooks is not None:
            self.config.hooks.runner.permission_mode = mode

    def set_model(self, model: str) -> None:
        """Use ``model`` from the next request on (``/model``, an SDK host's ``set_model``)."""
        self.config.model = model

    def interrupt(self) -> None:
        """Stop the running submission: the stream and tools stop, open tool calls get an error result."""
        self._interrupted = True
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def submit_message(self, prompt: str | list[dict[str, Any]]) -> AsyncIterator[Message]:  # noqa: C901
        """Run one prompt to its end, yielding SDK-shaped messages; the last one is the ``result``."""
        started = time.monotonic()
        api_time = 0.0
        turns = 0
        last_stop_reason: str | None = None
        last_text = ""
        errors: list[str] = []
        subtype = "success"
        ending: dict[str, Any] = {"terminal_reason": "completed"}
        tools_running = False
        rejected = False
        self._interrupted = False
        self._task = asyncio.current_task()

        if not self._init_sent:
            self._init_sent = True
            init = self.init_message()
            self._record(init)
            yield init

        context: list[str] = []
        if self.config.expand_prompt is not None and isinstance(prompt, str):
            prompt, context = await self.config.expand_prompt(prompt)
        hooks = self.config.hooks
        if hooks is not None:
            if not self._session_started:
                self._session_started = True
                started_outcome = await hooks.session_start(self.config.session_source)
                for out in self._hook_messages(started_outcome):
                    yield out
                self._start_context = started_outcome.additional_context
            text = (
                prompt
                if isinstance(prompt, str)
                else "".join(b.get("text", "") for b in prompt if isinstance(b, dict) and b.get("type") == "text")
            )
            submitted = await hooks.user_prompt_submit(text)
            for out in self._hook_messages(submitted):
                yield out
            if submitted.prevent_continuation:
                errors.append(f"Prompt blocked by a UserPromptSubmit hook: {submitted.stop_reason}")
                result = self._result(
                    "error_during_execution", 0, started, 0.0, "", None, errors, {"terminal_reason": "hook_stopped"}
                )
                self._record(result)
                yield result
                return
            if submitted.blocking:  # not an error: the hook did its job (Claude Code exits 0 in -p)
                refusal = "; ".join(message for _, message in submitted.blocking)
                yield self.outbox.warning(f"Prompt blocked by a UserPromptSubmit hook: {refusal}")
                result = self._result("success", 0, started, 0.0, "", None, errors, {"terminal_reason": "hook_stopped"})
                self._record(result)
                yield result
                return
            context += self._start_context + submitted.additional_context
            self._start_context = []

        user_param: Message = {"role": "user", "content": _with_context(prompt, context)}
        turn_start: int | None = len(self.conversation.messages)
        if self._user_context_pending:
            self._user_context_pending = False
            user_param = with_user_context(user_param, self.config.user_context)
        model = getattr(self.config.commands, "turn_model", None) or self.config.model  # a command's `model:`
        too_long = self.compactor.prompt_refusal(user_param, self._request(model))
        if too_long is not None:  # too long on its own: no request carries it, the history does not keep it
            self._user_context_pending = bool(self.config.user_context) and not has_user_context(self.messages)
            yield self.outbox.warning(too_long)
            result = self._result(
                "error_during_execution", 0, started, 0.0, "", None, [too_long], {"terminal_reason": "prompt_too_long"}
            )
            self._record(result)
            yield result
            return
        self.conversation.append(user_param)
        prompt_entry = self._envelope(sdk.user_message(user_param))
        self._record(prompt_entry)
        if self.config.recorder is not None:
            self.config.recorder.flush()

        params = QueryParams(
            client=self.config.client,
            registry=self.config.registry,
            tool_env=self.config.tool_env,
            model=model,
            conversation=self.conversation,
            system=self.config.system_prompt,
            max_tokens=self.config.max_tokens,
            max_turns=self.config.max_turns,
            can_use_tool=self.can_use_tool,
            retry_policy=self.config.retry_policy,
            hooks=hooks,
            thinking=self.config.thinking,
            compactor=self.compactor,
            merge_text_deltas=self.config.merge_text_deltas,
        )
        if hooks is not None:
            hooks.halt = None
        structured = StructuredOutputRun.for_registry(self.config.registry, hooks)
        if structured is not None:
            params.hooks = structured
        partial = self.config.include_partial_messages
        loop = query(params)
        request_started = 0.0
        streamed = MessageAccumulator()  # the answer in flight, kept if the user interrupts it
        interrupted = False
        try:
            async for event in loop:
                if isinstance(event, StreamDelta):
                    streamed.feed(event.event)
                    if not self._services_started:
                        # The first request is out: background services (MCP servers importing and starting)
                        # may take the CPU now without delaying it. A face may have started them earlier.
                        self.start_services()
                    if partial:
                        yield self._envelope({"type": "stream_event", "event": event.event, "parent_tool_use_id": None})
                elif isinstance(event, AssistantTurn):
                    streamed = MessageAccumulator()
                    api_time += time.monotonic() - request_started
                    turns += 1
                    message = event.message
                    last_stop_reason = message.get("stop_reason")
                    tools_running = last_stop_reason == "tool_use"
                    self.usage.add(message.get("model") or self.config.model, message.get("usage") or {})
                    if event.param["content"]:
                        self.conversation.note_usage(message.get("usage") or {})
                    last_text = "".join(b.get("text", "") for b in message["content"] if b.get("type") == "text")
                    out = self._envelope({"type": "assistant", "message": message, "parent_tool_use_id": None})
                    self._record(out)
                    yield out
                    if self._over_budget():
                        subtype = "error_max_budget_usd"
                        ending["terminal_reason"] = "max_budget_usd"
                        errors.append(f"Reached maximum budget (${self.config.max_budget_usd})")
                        break
                elif isinstance(event, ToolResults):
                    tools_running = False
                    for finished in event.finished:
                        if structured is not None and finished.name == STRUCTURED_OUTPUT:
                            structured.record(finished)
                        out = self._envelope(sdk.tool_result_message(finished))
                        self._record(out)
                        yield out
                    if self.config.recorder is not None:
                        self.config.recorder.flush(durable=True)
                    if structured is not None and structured.exhausted:
                        subtype = "error_max_structured_output_retries"
                        errors.append(structured.exhausted_message)
                        break
                elif isinstance(event, ResponseWithheld):
                    streamed = MessageAccumulator()
                    message = event.message
                    self.usage.add(message.get("model") or self.config.model, message.get("usage") or {})
                elif isinstance(event, UserInjected):
                    out = self._envelope(
                        {"type": "user", "message": event.param, "parent_tool_use_id": None, "isMeta": True}
                    )
                    self._record(out)
                    yield out
                elif isinstance(event, Compacted):
                    turn_start = None  # the history was rebuilt: there is no turn to take back any more
                    for out in self._compaction_messages(event):
                        yield out
                elif isinstance(event, NestedMessage):
                    if event.usage is not None:
                        self.usage.add(*event.usage)
                    if event.message is not None:  # a sub-agent's own transcript keeps it; ours stays resumable
                        yield self._envelope(dict(event.message))
                elif isinstance(event, RequestStarted):
                    streamed = MessageAccumulator()
                    request_started = time.monotonic()
                elif isinstance(event, (ToolStarted, ToolProgress, ToolFinished)):
                    if partial:
                        yield self._envelope(sdk.tool_event_message(event))
                elif isinstance(event, Notice):
                    if event.subtype == "stream_discarded":
                        streamed = MessageAccumulator()
                    out = self._envelope({"type": "system", "subtype": event.subtype, **event.data})
                    self._record(out)
                    yield out
                elif isinstance(event, LoopEnded):
                    ended = loop_ended(event, self.outbox, self.config.max_turns, ending, errors)
                    subtype = ended.subtype or subtype
                    rejected = ended.rejected
                    for out in ended.messages:
                        yield out
        except asyncio.CancelledError:
            if not self._interrupted:
                # Cancelled from outside (the face is going away): still leave a conversation the API accepts.
                await loop.aclose()
                self._answer_open_tool_uses("Interrupted by user")
                raise
            subtype = "error_during_execution"
            errors.append("Interrupted by user")
            interrupted = True
            ending["terminal_reason"] = "aborted_tools" if tools_running else "aborted_streaming"
            if (task := asyncio.current_task()) is not None:
                task.uncancel()
        except Exception as exc:
            subtype = "error_during_execution"
            log = record_exception(exc, self.session_id)
            where = f" (details in {log})" if log else ""
            errors.append(f"Unexpected error: {type(exc).__name__}: {exc}{where}")
            error_message = self._api_error(errors[-1])
            self._record(error_message)
            yield error_message
        finally:
            await loop.aclose()
            self._task = None

        self.start_services()
        if rejected and turn_start is not None:
            yield take_back(self.conversation, self.outbox, turn_start, prompt_entry["uuid"])
            errors[-1] = f"{errors[-1]}. {TAKEN_BACK}"  # the API's words stay first
            self._user_context_pending = bool(self.config.user_context) and turn_start == 0
        if interrupted:
            kept = self._keep_interrupted_answer(streamed)
            if kept is not None:
                yield kept
        repaired = self._answer_open_tool_uses(
            "Interrupted by user" if self._interrupted else "Cancelled: the turn ended before this tool ran"
        )
        if repaired is not None:
            yield repaired
        if interrupted:
            marker: Message = {"role": "user", "content": [{"type": "text", "text": INTERRUPTED_MARKER}]}
            self.conversation.append(marker)
            out = self._envelope(sdk.user_message(marker))
            self._record(out)
            yield out

        if subtype == "success":
            if structured is not None and structured.value is None:
                subtype = "error_max_structured_output_retries"
                errors.append(structured.exhausted_message)
            elif (problem := sdk.unsuccessful_answer(last_stop_reason, last_text, structured is not None)) is not None:
                subtype = "error_during_execution"
                ending["terminal_reason"], explanation = problem
                errors.append(explanation)
        if structured is not None and structured.value is not None:
            ending["structured_output"] = structured.value
        result = self._result(subtype, turns, started, api_time, last_text, last_stop_reason, errors, ending)
        self._record(result)
        if self.config.recorder is not None:
            self.config.recorder.flush(durable=True)
        yield result

    def _keep_interrupted_answer(self, streamed: MessageAccumulator) -> Message | None:
        """The part of an answer that streamed before the user interrupted it: the model sees what it had said
        (as in Claude Code), and the transcript, ``/export`` and ``--continue`` show it. None when nothing had."""
        content = streamed.partial_content()
        param = assistant_param(content)
        if param is None:
            return None
        self.conversation.append(param)
        message = {**streamed.message(), "content": content, "stop_reason": None}
        message["model"] = message.get("model") or self.config.model
        out = self._envelope({"type": "assistant", "message": message, "parent_tool_use_id": None})
        self._record(out)
        return out

    def _answer_open_tool_uses(self, reason: str) -> Message | None:
        """Invariant 1: every tool_use in the history gets a result, even when the turn ended early.

        Returns the ``user`` message that answered them (faces show it), or None when nothing was open.
        """
        repaired = synthetic_results(unanswered_tool_uses(self.messages), reason)
        if repaired is None:
            return None
        self.conversation.append(repaired)
        out = self._envelope(sdk.user_message(repaired))
        self._record(out)
        if self.config.recorder is not None:
            self.config.recorder.flush(durable=True)
        return out

    # -- compaction ----------------------------------------------------------------------------------------------

    async def compact(self, focus: str | None = None) -> list[Message]:
        """``/compact [focus]``: summarise the history now. Returns the messages that say what happened (a
        ``compact_boundary`` and the summary, or a warning); they are in the transcript already."""
        if not self.conversation.messages:
            return [
                self._envelope(
                    {"type": "system", "subtype": "warning", "level": "warning", "message": "Nothing to compact yet."}
                )
            ]
        request = self._request(self.config.model)
        out: list[Message] = []
        async for event in self.compactor.compact(self.conversation, request, "manual", focus):
            if isinstance(event, Compacted):
                out += self._compaction_messages(event)
            elif isinstance(event, Notice):
                message = self._envelope({"type": "system", "subtype": event.subtype, **event.data})
                self._record(message)
                out.append(message)
        if self.config.recorder is not None:
            self.config.recorder.flush(durable=True)
        return out

    def _request(self, model: str) -> ModelRequest:
        """The next request as it stands (what compaction and the prompt check measure)."""
        return ModelRequest(
            model=model,
            max_tokens=self.config.max_tokens,
            messages=self.conversation.messages,
            system=self.config.system_prompt,
            tools=self.config.registry.schemas(),
            thinking=self.config.thinking,
        )

    def _compaction_messages(self, event: Compacted) -> list[Message]:
        if event.usage is not None:
            self.usage.add(*event.usage)
        return self.outbox.compaction(event)

    # -- accounting ------------------------------------------------------------------------------------------------

    def _over_budget(self) -> bool:
        limit = self.config.max_budget_usd
        return limit is not None and self.usage.cost_usd >= limit


def _with_context(prompt: str | list[dict[str, Any]], context: list[str]) -> str | list[dict[str, Any]]:
    """The prompt, followed by what hooks added for the model (as reminders, not as the user's words)."""
    if not context:
        return prompt
    blocks = [{"type": "text", "text": prompt}] if isinstance(prompt, str) else list(prompt)
    blocks += [{"type": "text", "text": f"<system-reminder>\n{item}\n</system-reminder>"} for item in context]
    return blocks
