"""StreamingToolExecutor with scripted tools: what runs together, what waits, ordering, aborts, oversized results."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest

from agentcli.api.accumulate import InvalidToolInput
from agentcli.events import ToolFinished, ToolProgress, ToolStarted
from agentcli.tools.base import Tool, ToolCall, ToolEnv, ToolInput, ToolOutput, ToolRegistry
from agentcli.tools.executor import INTERRUPTED, StreamingToolExecutor
from agentcli.tools.permissions import PermissionDecision, allow_all
from tests.waiting import DEADLINE_S, until


class SleepInput(ToolInput):
    seconds: float = 0.0
    text: str = "done"


class Timeline:
    def __init__(self) -> None:
        self.spans: dict[str, tuple[float, float]] = {}
        self.running = 0
        self.peak = 0

    def overlapping(self, a: str, b: str) -> bool:
        (a0, a1), (b0, b1) = self.spans[a], self.spans[b]
        return a0 < b1 and b0 < a1


class SleepTool(Tool):
    """Sleeps, reporting progress, and records when it ran."""

    name: ClassVar[str] = "Nap"
    description = "sleeps"
    input_model = SleepInput
    safe: ClassVar[bool] = True

    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline

    def is_read_only(self, tool_input: Any) -> bool:
        return self.safe

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        start = time.monotonic()
        self.timeline.running += 1
        self.timeline.peak = max(self.timeline.peak, self.timeline.running)
        try:
            call.report("halfway")
            await asyncio.sleep(tool_input.seconds)
            if tool_input.text == "crash":
                raise RuntimeError("tool bug")
            return ToolOutput(tool_input.text, structured={"slept": tool_input.seconds})
        finally:
            self.timeline.running -= 1
            self.timeline.spans[call.tool_use_id] = (start, time.monotonic())


class WriteNap(SleepTool):
    name: ClassVar[str] = "WriteNap"
    safe: ClassVar[bool] = False


async def running(timeline: Timeline, count: int) -> None:
    """Wait until ``count`` tools are inside their call."""
    await until(lambda: timeline.running >= count, f"{count} tools to start")


@pytest.fixture
def timeline() -> Timeline:
    return Timeline()


@pytest.fixture
def make(timeline: Timeline, project: Path, tmp_path: Path):
    def build(can_use_tool=allow_all, scratch: bool = True, **kwargs: Any) -> StreamingToolExecutor:
        registry = ToolRegistry([SleepTool(timeline), WriteNap(timeline)])
        env = ToolEnv(project, scratch_dir=tmp_path / "scratch" if scratch else None)
        return StreamingToolExecutor(registry, env, can_use_tool, **kwargs)

    return build


def use(tool_id: str, name: str = "Nap", **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


async def drain(executor: StreamingToolExecutor) -> list[Any]:
    return [event async for event in executor.drain()]


async def test_concurrency_safe_calls_run_together_and_results_keep_tool_use_order(make, timeline):
    executor = make()
    executor.add(use("a", seconds=0.2, text="A"))
    executor.add(use("b", seconds=0.05, text="B"))
    await drain(executor)
    assert timeline.overlapping("a", "b")
    finished = executor.results()
    assert [f.tool_use_id for f in finished] == ["a", "b"]  # b finished first; order stays tool_use order
    assert [f.block["content"] for f in finished] == ["A", "B"]
    assert finished[0].structured == {"slept": 0.2}


async def test_other_calls_run_alone_and_in_order(make, timeline):
    executor = make()
    executor.add(use("r1", seconds=0.1))
    executor.add(use("w1", "WriteNap", seconds=0.05))
    executor.add(use("w2", "WriteNap", seconds=0.05))
    executor.add(use("r2", seconds=0.05))
    await drain(executor)
    spans = timeline.spans
    assert spans["r1"][1] <= spans["w1"][0] and spans["w1"][1] <= spans["w2"][0] <= spans["w2"][1] <= spans["r2"][0]
    assert timeline.peak == 1


async def test_parallelism_is_bounded(make, timeline):
    executor = make(max_concurrency=3)
    for n in range(7):
        executor.add(use(f"t{n}", seconds=0.05))
    await drain(executor)
    assert timeline.peak == 3 and len(executor.results()) == 7


async def test_events_started_progress_finished(make):
    executor = make()
    executor.add(use("a", seconds=0.01, text="A"))
    events = await drain(executor)
    assert [type(e) for e in events] == [ToolStarted, ToolProgress, ToolFinished]
    assert events[0].input == {"seconds": 0.01, "text": "A"}
    assert events[1].output == "halfway" and events[1].elapsed_s >= 0


async def test_abort_interrupts_running_and_queued_calls(make, timeline):
    executor = make()
    executor.add(use("w", "WriteNap", seconds=300))
    executor.add(use("queued", seconds=300))
    await running(timeline, 1)
    await asyncio.wait_for(executor.abort(), DEADLINE_S)  # cut short: waiting them out would take five minutes
    results = executor.results()
    assert [(f.tool_use_id, f.block["content"], f.is_error) for f in results] == [
        ("w", INTERRUPTED, True),
        ("queued", INTERRUPTED, True),
    ]
    assert "queued" not in timeline.spans  # it never started


async def test_discard_drops_everything(make, timeline):
    executor = make()
    executor.add(use("a", seconds=300))
    await running(timeline, 1)
    await executor.discard()
    assert not executor.has_events


async def test_bad_input_unknown_tools_and_broken_json_are_answered(make):
    executor = make()
    executor.add(use("bad", seconds="long"))
    executor.add({"type": "tool_use", "id": "nope", "name": "Teleport", "input": {}})
    executor.add(
        {"type": "tool_use", "id": "json", "name": "Nap", "input": {}},
        InvalidToolInput("json", '{"seconds": ', "Expecting value"),
    )
    executor.add(use("crash", text="crash"))
    await drain(executor)
    blocks = {f.tool_use_id: f.block for f in executor.results()}
    assert blocks["bad"]["content"] == (
        "<tool_use_error>Nap failed due to the following issue:\n"
        "The parameter `seconds` type is expected as `number` but provided as `string`</tool_use_error>"
    )
    assert blocks["nope"]["content"] == "Error: No such tool available: Teleport"
    assert "not valid JSON" in blocks["json"]["content"]
    assert blocks["crash"]["content"] == "Error: RuntimeError: tool bug"
    assert all(block["is_error"] for block in blocks.values())


async def test_a_denied_call_never_starts(make, timeline):
    async def deny(tool: Tool, tool_input: dict[str, Any], call: ToolCall) -> PermissionDecision:
        return PermissionDecision("deny", "not today")

    executor = make(can_use_tool=deny)
    executor.add(use("a"))
    events = await drain(executor)
    assert [type(e) for e in events] == [ToolFinished]
    assert events[0].block == {"type": "tool_result", "tool_use_id": "a", "content": "not today", "is_error": True}
    assert events[0].structured == {"type": "permission_denied", "message": "not today"}
    assert timeline.spans == {}


async def test_a_permission_decision_may_rewrite_the_input(make):
    async def rewrite(tool: Tool, tool_input: dict[str, Any], call: ToolCall) -> PermissionDecision:
        return PermissionDecision("allow", updated_input={**tool_input, "text": "rewritten"})

    executor = make(can_use_tool=rewrite)
    executor.add(use("a", text="original"))
    await drain(executor)
    assert executor.results()[0].block["content"] == "rewritten"


async def test_oversized_results_go_to_a_file_with_a_preview(make, tmp_path: Path):
    executor = make()
    big = "".join(f"line {n}\n" for n in range(20_000))
    executor.add(use("toolu_big", text=big))
    await drain(executor)
    content = executor.results()[0].block["content"]
    assert content.startswith("<persisted-output>") and len(content) < 6_000
    saved = tmp_path / "scratch" / "toolu_big.txt"
    assert str(saved) in content and saved.read_text() == big
    assert saved.stat().st_mode & 0o777 == 0o600 and saved.parent.stat().st_mode & 0o777 == 0o700


async def test_oversized_results_without_a_scratch_folder_lose_their_middle(make):
    executor = make(scratch=False)
    executor.add(use("toolu_big", text="a" * 40_000 + "b" * 40_000))
    await drain(executor)
    content = executor.results()[0].block["content"]
    assert content.startswith("aaa") and content.endswith("bbb") and "cut from the middle" in content
    assert len(content) < 51_000


async def test_the_time_spent_at_the_permission_prompt_is_not_the_tools(make):
    """A call's duration starts when the user answered, so the Bash timer does not count the wait for them."""
    answered: list[float] = []

    async def slow_person(tool: Any, tool_input: Any, call: Any) -> PermissionDecision:
        asked = time.monotonic()
        await until(lambda: time.monotonic() > asked + 0.05, "the person to take a moment")
        answered.append(time.monotonic())
        return PermissionDecision("allow")

    executor = make(can_use_tool=slow_person)
    executor.add(use("a", seconds=0, text="A"))
    finished = [event async for event in executor.drain() if isinstance(event, ToolFinished)]
    seen = time.monotonic()
    assert finished[0].duration_s <= seen - answered[0]
