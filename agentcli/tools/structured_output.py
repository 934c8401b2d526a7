"""StructuredOutput: how a run with ``--json-schema`` hands back its answer as data the schema accepts.

The model submits the answer as this tool's input; jsonschema checks it and an invalid one comes back as a tool
error naming what is wrong, so the model can correct it. Nothing outside the session changes.
"""

from __future__ import annotations

import os
from typing import Any

from pydantic import ConfigDict

from agentcli.config.inputs import InputFileError, parse_json
from agentcli.events import ToolFinished
from agentcli.hooks.session_hooks import LoopHooks, StopVerdict
from agentcli.tools.base import Tool, ToolCall, ToolFailure, ToolInput, ToolOutput, ToolRegistry

STRUCTURED_OUTPUT = "StructuredOutput"
DEFAULT_MAX_RETRIES = 5
REMINDER = (
    f"You MUST call the {STRUCTURED_OUTPUT} tool to complete this request. Call it now with your final answer "
    "as input matching the required schema."
)


class InvalidSchema(ValueError):
    """The schema given with --json-schema is not a JSON Schema."""


class AnyInput(ToolInput):
    """Any JSON object; the real check is the user's schema, in :meth:`StructuredOutputTool.call`."""

    model_config = ConfigDict(extra="allow", strict=True)


def load_schema(text: str) -> dict[str, Any]:
    """Parse and check a schema given on the command line (or by an SDK host's ``output_format``)."""
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    try:
        schema = parse_json(text, "the schema")
    except InputFileError as exc:
        raise InvalidSchema(exc.message) from None
    if not isinstance(schema, dict):
        raise InvalidSchema("the schema must be a JSON object")
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        raise InvalidSchema(exc.message) from None
    if schema.get("type", "object") != "object":
        raise InvalidSchema('the top level must be an object ("type": "object"): tool inputs are objects')
    return schema


def max_retries() -> int:
    raw = os.environ.get("AGENTCLI_MAX_STRUCTURED_OUTPUT_RETRIES", "").strip()
    return max(1, int(raw)) if raw.isdigit() else DEFAULT_MAX_RETRIES


class StructuredOutputTool(Tool):
    name = STRUCTURED_OUTPUT
    description = (
        "Use this tool to return your final response in the requested structured format. You MUST call this tool "
        "exactly once at the end of your response to provide the structured output."
    )
    input_model = AnyInput

    def __init__(self, schema: dict[str, Any]) -> None:
        from jsonschema.validators import validator_for

        self.schema = schema
        self._validator = validator_for(schema)(schema)

    def api_schema(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": self.schema}

    def is_read_only(self, tool_input: Any) -> bool:
        return True

    def is_concurrency_safe(self, tool_input: Any) -> bool:
        return False

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        data = tool_input.model_dump()
        problems = sorted(self._validator.iter_errors(data), key=lambda error: list(error.absolute_path))
        if problems:
            lines = [f"- {_where(error.absolute_path)}: {error.message}" for error in problems[:20]]
            raise ToolFailure("Output does not match the required schema:\n" + "\n".join(lines))
        return ToolOutput("Structured output provided successfully", structured=data)


def _where(path: Any) -> str:
    parts = list(path)
    return "/" + "/".join(str(part) for part in parts) if parts else "(root)"


class StructuredOutputRun:
    """One submission's watch over StructuredOutput: the turn may not end before a valid call, and every invalid
    call or reminder counts against the retries. As the loop's hooks it wraps the session's own."""

    def __init__(self, inner: LoopHooks | None, retries: int) -> None:
        self.inner = inner
        self.retries = retries
        self.block_cap = retries
        self.failures = 0
        self.value: dict[str, Any] | None = None

    @property
    def halt(self) -> str | None:
        return self.inner.halt if self.inner is not None else None

    def take_warnings(self) -> list[str]:
        return self.inner.take_warnings() if self.inner is not None else []

    @classmethod
    def for_registry(cls, registry: ToolRegistry, inner: LoopHooks | None) -> StructuredOutputRun | None:
        """A watch when the session offers StructuredOutput (``--json-schema``), else None."""
        return cls(inner, max_retries()) if registry.get(STRUCTURED_OUTPUT) is not None else None

    @property
    def exhausted(self) -> bool:
        return self.value is None and self.failures >= self.retries

    @property
    def exhausted_message(self) -> str:
        return f"Failed to provide valid structured output after {self.failures} attempts"

    def record(self, finished: ToolFinished) -> None:
        if finished.is_error or finished.structured is None:
            self.failures += 1
        else:
            self.value = finished.structured

    async def stop(self, last_assistant_text: str, stop_hook_active: bool) -> StopVerdict:
        if self.value is None:
            self.failures += 1
            return StopVerdict() if self.exhausted else StopVerdict(feedback=REMINDER)
        if self.inner is None:
            return StopVerdict()
        return await self.inner.stop(last_assistant_text, stop_hook_active)

    async def post_tool_use(self, tool_use: dict[str, Any], finished: ToolFinished) -> list[str]:
        return [] if self.inner is None else await self.inner.post_tool_use(tool_use, finished)
