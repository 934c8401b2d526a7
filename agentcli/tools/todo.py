"""TodoWrite: the session's task list. The model keeps it current; faces show it so the user can follow along."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from agentcli.tools.base import Tool, ToolCall, ToolInput, ToolOutput


class TodoItem(ToolInput):
    content: str = Field(min_length=1, description='The task, in the imperative ("Run the tests")')
    status: Literal["pending", "in_progress", "completed"]
    activeForm: str = Field(min_length=1, description='The task in the present continuous ("Running the tests")')


class TodoWriteInput(ToolInput):
    todos: list[TodoItem] = Field(description="The updated todo list")


class TodoWriteTool(Tool):
    name = "TodoWrite"
    description = (
        "Creates and updates the task list for this session, which the user sees. Use it for work with three or "
        "more steps: list the steps, mark one in_progress before starting it, and mark it completed as soon as it "
        "is done. Send the whole list every time; it replaces the previous one. Skip it for single, trivial tasks."
    )
    input_model = TodoWriteInput

    def is_read_only(self, tool_input: Any) -> bool:
        return True  # it changes nothing outside this session

    def is_concurrency_safe(self, tool_input: Any) -> bool:
        return False  # successive lists must land in order

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        old = call.env.state.todos
        new = [item.model_dump() for item in tool_input.todos]
        call.env.state.todos = new
        return ToolOutput(
            "Todos have been modified successfully. Ensure that you continue to use the todo list to track your "
            "progress. Please proceed with the current tasks if applicable",
            structured={"oldTodos": old, "newTodos": new},
        )
