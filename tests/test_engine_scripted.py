"""The engine around the loop, in process on the scripted model: results, usage and budgets in milliseconds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcli.api.retry import RetryPolicy
from agentcli.engine import EngineConfig, QueryEngine
from agentcli.testing.scripted_model import ScriptedModel
from agentcli.tools.base import ToolEnv, ToolRegistry
from agentcli.tools.read import ReadTool


def engine_for(model: ScriptedModel, project: Path, **config: Any) -> QueryEngine:
    return QueryEngine(
        EngineConfig(
            client=model,
            registry=ToolRegistry([ReadTool()]),
            tool_env=ToolEnv(project),
            model="claude-sonnet-5-5",
            retry_policy=RetryPolicy(base_delay_s=0),
            **config,
        )
    )


async def submit(engine: QueryEngine, prompt: str) -> list[dict[str, Any]]:
    return [message async for message in engine.submit_message(prompt)]


async def test_a_turn_with_a_tool_gives_a_result_with_summed_usage(project: Path):
    model = ScriptedModel(
        [
            {
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "README.md"}}],
                "usage": {"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 50},
            },
            {
                "content": [{"type": "text", "text": "It is a demo."}],
                "usage": {"input_tokens": 130, "output_tokens": 8},
            },
        ]
    )
    engine = engine_for(model, project)
    messages = await submit(engine, "what is this project?")
    assert [m["type"] for m in messages] == ["system", "assistant", "user", "assistant", "result"]
    result = messages[-1]
    assert result["subtype"] == "success" and result["result"] == "It is a demo." and result["num_turns"] == 2
    assert result["usage"]["input_tokens"] == 230 and result["usage"]["output_tokens"] == 28
    assert result["usage"]["cache_read_input_tokens"] == 50
    assert result["total_cost_usd"] > 0
    model.assert_all_valid()


async def test_the_next_prompt_repeats_the_history_byte_for_byte(project: Path):
    model = ScriptedModel({"turns": [], "on_exhausted": "echo"})
    engine = engine_for(model, project)
    await submit(engine, "first")
    await submit(engine, "second")
    first, second = model.requests
    assert second["messages"][: len(first["messages"])] == first["messages"]
    assert "second" in str(second["messages"][-1]["content"])
    model.assert_all_valid()


async def test_max_turns_ends_with_its_own_subtype(project: Path):
    model = ScriptedModel(
        {
            "turns": [
                {
                    "content": [
                        {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "README.md"}}
                    ]
                },
            ],
            "on_exhausted": "repeat_last",
        }
    )
    engine = engine_for(model, project, max_turns=2)
    result = (await submit(engine, "loop forever"))[-1]
    assert result["subtype"] == "error_max_turns" and result["is_error"] is True
    assert len(model.requests) == 2


async def test_a_model_error_ends_the_run_as_an_error_result(project: Path):
    model = ScriptedModel([{"fault": {"kind": "http", "status": 401}}])
    result = (await submit(engine_for(model, project), "hi"))[-1]
    assert result["subtype"] == "error_during_execution" and result["is_error"] is True
    assert len(model.requests) == 1
