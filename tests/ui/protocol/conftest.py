"""The official Agent SDK driving agentcli as its CLI, against the fake Messages API."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentcli.testing import FakeAnthropicServer

AGENTCLI = str(Path(sys.executable).with_name("agentcli"))


def text_turn(text: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text, "chunks": 2}], **extra}


def tool_turn(name: str, tool_input: dict[str, Any], tool_id: str, text: str = "On it.") -> dict[str, Any]:
    return {
        "content": [
            {"type": "text", "text": text},
            {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input, "chunks": 3},
        ]
    }


def last_user_text(request: Any) -> str:
    from agentcli.testing.expectations import last_user_text as text

    return text(request.body)


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [])


@pytest.fixture
def sdk_options(project: Path, fake_api: Callable[..., FakeAnthropicServer]) -> Callable[..., Any]:
    """``ClaudeAgentOptions`` that start agentcli in the temp project against a fake API playing ``turns``."""
    from claude_agent_sdk import ClaudeAgentOptions

    def make(turns: list[dict[str, Any]], **options: Any) -> tuple[Any, FakeAnthropicServer]:
        server = fake_api({"turns": turns})
        env = {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "test-key", **options.pop("env", {})}
        return ClaudeAgentOptions(cli_path=AGENTCLI, cwd=str(project), env=env, **options), server

    return make


async def collect(prompt: Any, options: Any) -> list[Any]:
    from claude_agent_sdk import query

    return [message async for message in query(prompt=prompt, options=options)]


async def conversation(options: Any, *prompts: str) -> list[list[Any]]:
    """Send each prompt in turn over one ``ClaudeSDKClient``; every response's messages, up to its result."""
    from claude_agent_sdk import ClaudeSDKClient

    responses = []
    async with ClaudeSDKClient(options=options) as client:
        for prompt in prompts:
            await client.query(prompt)
            responses.append([message async for message in client.receive_response()])
    return responses
