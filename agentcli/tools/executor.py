"""StreamingToolExecutor: tools start the moment their tool_use block is complete, while the message still streams.

Concurrency-safe calls run side by side (bounded); any other call waits for everything before it and holds back
everything after it, so writes happen in the order the model asked for them. Results are handed back in tool_use
order, whatever order they finished in, so the next request is deterministic. A result too large to send is
saved under the session's scratch folder and the model gets a preview and the path.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from agentcli.api.accumulate import InvalidToolInput
from agentcli.context.nested_memory import with_reminder
from agentcli.events import NestedMessage, ToolFinished, ToolProgress, ToolStarted
from agentcli.tools.base import Tool, ToolCall, ToolEnv, ToolFailure, ToolOutput, ToolRegistry, parse_input
from agentcli.tools.output import limit_result
from agentcli.tools.paths import landing, resolve
from agentcli.tools.permissions import CanUseTool

DEFAULT_MAX_CONCURRENCY = 10
INTERRUPTED = "Interrupted by user"

ExecutorEvent = ToolStarted | ToolProgress | ToolFinished | NestedMessage


@dataclass
class _Entry:
    block: dict[str, Any]
    invalid: InvalidToolInput | None
    safe: bool
    status: str = "queued"  # queued | running | done
    task: asyncio.Task[None] | None = None
    call: ToolCall | None = None
    started_at: float = 0.0
    finished: ToolFinished | None = None


def tool_result_block(tool_use_id: str, content: str | list[dict[str, Any]], is_error: bool) -> dict[str, Any]:
    if isinstance(content, str) and not content:
        content = "(no output)"
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if is_error:
        block["is_error"] = True
    return block


class StreamingToolExecutor:
    """Runs the tool calls of one assistant message."""

    def __init__(
        self,
        registry: ToolRegistry,
        env: ToolEnv,
        can_use_tool: CanUseTool,
        *,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    ) -> None:
        self._registry = registry
        self._env = env
        self._can_use_tool = can_use_tool
        self._max_concurrency = max_concurrency
        self._entries: list[_Entry] = []
        self._events: deque[ExecutorEvent] = deque()
        self._wake = asyncio.Event()
        self._closed = False

    @property
    def has_events(self) -> bool:
        return bool(self._events)

    def take_events(self) -> list[ExecutorEvent]:
        events = list(self._events)
        self._events.clear()
        return events

    def add(self, block: dict[str, Any], invalid: InvalidToolInput | None = None) -> None:
        """Queue a complete tool_use block and start it if the running calls allow."""
        tool = self._registry.get(block["name"])
        safe = False
        if tool is not None and invalid is None:
            parsed = parse_input(tool, block["input"])
            if not isinstance(parsed, str):
                try:
                    safe = tool.is_concurrency_safe(parsed)
                except Exception:
                    safe = False
        self._entries.append(_Entry(block, invalid, safe))
        self._pump()

    def _pump(self) -> None:
        if self._closed:
            return
        running = [e for e in self._entries if e.status == "running"]
        for entry in self._entries:
            if entry.status != "queued":
                continue
            if not running or (entry.safe and all(r.safe for r in running) and len(running) < self._max_concurrency):
                self._start(entry)
                running.append(entry)
            elif not entry.safe:
                break

    def _start(self, entry: _Entry) -> None:
        entry.status = "running"
        entry.started_at = time.monotonic()
        tool_use_id = entry.block["id"]
        name = entry.block["name"]

        def report(text: str) -> None:
            self._push(ToolProgress(tool_use_id, name, time.monotonic() - entry.started_at, text))

        entry.call = ToolCall(self._env, tool_use_id, report, nest=self._push)
        entry.task = asyncio.get_running_loop().create_task(self._run(entry), name=f"tool:{name}:{tool_use_id}")

    def _push(self, event: ExecutorEvent) -> None:
        self._events.append(event)
        self._wake.set()

    async def _run(self, entry: _Entry) -> None:
        try:
            output = await self._execute(entry)
        except asyncio.CancelledError:
            self._finish(entry, ToolOutput(INTERRUPTED, is_error=True))
            raise
        except Exception as exc:  # a tool bug must not take the session down
            output = ToolOutput(f"Error: {type(exc).__name__}: {exc}", is_error=True)
        self._finish(entry, output)

    async def _execute(self, entry: _Entry) -> ToolOutput:
        block = entry.block
        name = block["name"]
        if entry.invalid is not None:
            return ToolOutput(
                f"{name} failed: the tool input was not valid JSON ({entry.invalid.error}). "
                "Send the call again with a complete JSON object.",
                is_error=True,
            )
        tool = self._registry.get(name)
        if tool is None:
            return ToolOutput(f"Error: No such tool available: {name}", is_error=True)
        parsed = parse_input(tool, block["input"])
        if isinstance(parsed, str):
            return ToolOutput(f"<tool_use_error>{parsed}</tool_use_error>", is_error=True)
        assert entry.call is not None
        decision = await self._can_use_tool(tool, block["input"], entry.call)
        if decision.behavior != "allow":
            message = decision.message or f"Permission to use {name} was denied."
            return ToolOutput(message, is_error=True, structured={"type": "permission_denied", "message": message})
        if decision.updated_input is not None:
            parsed = parse_input(tool, decision.updated_input)
            if isinstance(parsed, str):
                return ToolOutput(f"<tool_use_error>{parsed}</tool_use_error>", is_error=True)
        entry.call.checked_path = decision.checked_path
        await self._before_change(tool, parsed, entry.call)
        entry.started_at = time.monotonic()  # the time spent at a permission prompt is not the tool's
        self._push(ToolStarted(block["id"], name, parsed.model_dump(exclude_none=True, by_alias=True)))
        try:
            output = await tool.call(parsed, entry.call)
        except ToolFailure as exc:
            return ToolOutput(f"<tool_use_error>{exc}</tool_use_error>", is_error=True)
        if isinstance(output.content, str):
            output.content = limit_result(output.content, block["id"], self._env.scratch_dir)
        memory = self._env.state.memory
        if memory is not None and not output.is_error:
            used = decision.updated_input if decision.updated_input is not None else block["input"]
            reminder = memory.reminder_for(used, self._env.project_dir)
            if reminder is not None:
                output.content = with_reminder(output.content, reminder)
        return output

    async def _before_change(self, tool: Tool, parsed: Any, call: ToolCall) -> None:
        """Tell the session a tool is about to change a file (its checkpoint keeps what the file holds now). The
        checkpoint and the tool both take the file the permission check judged (or, without one, where the path
        leads now, fixed here for both)."""
        keep = self._env.before_write
        if keep is None or tool.is_read_only(parsed):
            return
        target = tool.target_path(parsed)
        if target is not None:
            shown = resolve(target, self._env.project_dir)

            def keep_checked() -> None:  # in a thread: resolving touches the disk
                if call.checked_path is None:
                    call.checked_path = landing(shown)
                keep(shown, call.checked_path)

            await asyncio.to_thread(keep_checked)

    def _finish(self, entry: _Entry, output: ToolOutput) -> None:
        if entry.status == "done":
            return
        entry.status = "done"
        block = tool_result_block(entry.block["id"], output.content, output.is_error)
        entry.finished = ToolFinished(
            entry.block["id"], entry.block["name"], block, output.structured, time.monotonic() - entry.started_at
        )
        self._push(entry.finished)
        self._pump()

    async def drain(self) -> AsyncIterator[ExecutorEvent]:
        """Yield events as they happen until every queued call has finished."""
        while True:
            while self._events:
                yield self._events.popleft()
            if all(entry.status == "done" for entry in self._entries):
                return
            self._wake.clear()
            await self._wake.wait()

    def results(self) -> list[ToolFinished]:
        """Every call's result in tool_use order (call after :meth:`drain` or :meth:`abort`)."""
        return [entry.finished for entry in self._entries if entry.finished is not None]

    async def abort(self, reason: str = INTERRUPTED) -> None:
        """Cancel running calls, answer unfinished ones with ``reason``, and wait until no call is left running."""
        self._closed = True
        tasks = [entry.task for entry in self._entries if entry.task is not None and not entry.task.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        for entry in self._entries:
            if entry.status != "done":
                self._finish(entry, ToolOutput(reason, is_error=True))

    async def discard(self) -> None:
        """Drop everything (model fallback): running calls are cancelled and no results are kept."""
        await self.abort("Discarded: the model request was retried")
        self._events.clear()
