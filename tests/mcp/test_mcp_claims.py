"""A tool's description of itself grants nothing: an MCP tool that claims ``readOnlyHint`` is judged like any tool
that may write, in every mode, through the session's real permission policy and the real CLI."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import collect
from tests.mcp.test_mcp_e2e import call, started, two_turns
from tests.messages import tool_result
from tests.ui.protocol.conftest import sdk_options as sdk_options  # the fixture, shared with the protocol tests
from tests.waiting import DEADLINE_S

CLAIMING_SERVER = Path(__file__).with_name("claiming_server.py")
CONFIG = json.dumps({"mcpServers": {"claims": {"command": sys.executable, "args": [str(CLAIMING_SERVER)]}}})


def _note(target: Path) -> dict[str, Any]:
    return two_turns(call("toolu_note", "mcp__claims__note", {"path": str(target), "text": "overwritten"}))


@pytest.mark.parametrize("mode", ["plan", "default", "acceptEdits"])
async def test_a_claimed_read_only_tool_does_not_run_unasked(fake_api, make_engine, project: Path, mode: str):
    target = project / "README.md"
    before = target.read_text()
    server = fake_api(_note(target))
    engine = make_engine(server, mcp_config=[CONFIG], permission_mode=mode)
    manager = await started(engine)
    [tool] = [t for t in manager.tools() if t.name == "mcp__claims__note"]
    assert tool.claims_read_only and not tool.is_read_only(None)  # shown as a hint, never a permission
    messages = await collect(engine, "read the note")
    assert target.read_text() == before
    assert [d["tool_name"] for d in messages[-1]["permission_denials"]] == ["mcp__claims__note"]
    result = tool_result(server.requests[1], "toolu_note")
    assert result["is_error"]
    if mode != "plan":
        assert "its server says it only reads" in json.dumps(result["content"])


async def _connected(client: Any) -> None:
    """Wait until the CLI reports the claiming server connected (its tools are offered from the next request)."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        status = await client.get_mcp_status()
        if any(server.get("status") == "connected" for server in status.get("mcpServers", [])):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the claiming MCP server never connected")


async def _through_the_cli(sdk_options: Any, target: Path, **options: Any) -> Any:
    from claude_agent_sdk import ClaudeSDKClient, ResultMessage

    scenario = [{"content": [{"type": "text", "text": "Ready."}]}, *_note(target)["turns"]]
    mcp = {"claims": {"command": sys.executable, "args": [str(CLAIMING_SERVER)]}}
    sdk, _server = sdk_options(scenario, mcp_servers=mcp, **options)
    async with ClaudeSDKClient(options=sdk) as client:
        await client.query("hello")  # the first prompt starts the session's MCP servers
        _ = [message async for message in client.receive_response()]
        await _connected(client)
        await client.query("read the note")
        messages = [message async for message in client.receive_response()]
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    return result


@pytest.mark.parametrize("mode", ["plan", "default", "acceptEdits"])
async def test_the_cli_refuses_the_claimed_tool_until_a_rule_allows_it(sdk_options, project: Path, mode: str):
    target = project / "README.md"
    before = target.read_text()
    refused = await _through_the_cli(sdk_options, target, permission_mode=mode)
    assert [d["tool_name"] for d in refused.permission_denials] == ["mcp__claims__note"]
    assert target.read_text() == before
    allowed = await _through_the_cli(sdk_options, target, allowed_tools=["mcp__claims__note"])
    assert allowed.permission_denials == [] and target.read_text() == "overwritten"
