"""SDK-hosted MCP servers at the engine: the driving program's side is the official Agent SDK's own MCP bridge, in
this process, reached through the same ``HostedSend`` the SDK protocol face gives the session."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import collect
from tests.mcp.conftest import request_tools, tool_results

CONFIG = json.dumps({"mcpServers": {"calc": {"type": "sdk", "name": "calc"}}})


class Host:
    """The driving program: its SDK MCP bridge answers until it goes away or starts refusing."""

    def __init__(self) -> None:
        from claude_agent_sdk import create_sdk_mcp_server, tool
        from claude_agent_sdk._internal.sdk_mcp_bridge import SdkMcpBridge

        @tool("add", "Add two numbers", {"a": int, "b": int})
        async def add(args: dict[str, Any]) -> dict[str, Any]:
            return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

        self.bridge = SdkMcpBridge("calc", create_sdk_mcp_server("calc", tools=[add])["instance"])
        self.gone = False
        self.refusing: str | None = None
        self.methods: list[str] = []

    async def __call__(self, server: str, message: dict[str, Any]) -> dict[str, Any]:
        assert server == "calc"
        if self.gone:
            raise ConnectionError("the driving program closed stdin")
        if self.refusing:
            raise RuntimeError(self.refusing)
        self.methods.append(message.get("method", "(response)"))
        return await self.bridge.handle(message) or {"jsonrpc": "2.0", "result": {}}


def two_turns(*uses: dict[str, Any]) -> dict[str, Any]:
    return {"turns": [{"content": list(uses)}, {"content": [{"type": "text", "text": "Done."}]}]}


def add(tool_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "mcp__calc__add", "input": {"a": 2, "b": 40}}


async def test_the_hosted_server_connects_before_the_first_request_and_answers(fake_api, make_engine):
    host = Host()
    server = fake_api(two_turns(add("toolu_1")))
    engine = make_engine(server, mcp_config=[CONFIG], hosted_mcp=host, allowed_tools=["mcp__calc"])
    await engine.config.extensions["mcp"].hosted_ready()
    messages = await collect(engine, "add")
    assert messages[0]["mcp_servers"] == [{"name": "calc", "status": "connected"}]
    assert "mcp__calc__add" in request_tools(server.requests[0].body)
    [result] = tool_results(server.requests[1].body)
    assert result["content"] == "42"
    assert host.methods[:2] == ["initialize", "notifications/initialized"] and "tools/call" in host.methods
    await host.bridge.aclose()


async def test_a_call_after_the_driving_program_went_away_is_an_error_result(fake_api, make_engine):
    host = Host()
    server = fake_api(two_turns(add("toolu_1")))
    engine = make_engine(server, mcp_config=[CONFIG], hosted_mcp=host, allowed_tools=["mcp__calc"])
    manager = engine.config.extensions["mcp"]
    await manager.hosted_ready()
    host.gone = True
    messages = await collect(engine, "add")
    [result] = tool_results(server.requests[1].body)
    assert result["is_error"] and "calc" in result["content"]
    assert manager.get("calc").status == "failed" and "connection lost" in manager.get("calc").error
    assert messages[-1]["result"] == "Done."
    await host.bridge.aclose()


async def test_a_refused_handshake_is_reported_with_the_programs_reason(fake_api, make_engine):
    host = Host()
    host.refusing = "agentcli does not host that server"
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "hi"}]}]})
    engine = make_engine(server, mcp_config=[CONFIG], hosted_mcp=host)
    await engine.config.extensions["mcp"].hosted_ready()
    messages = await collect(engine, "hi")
    [status] = messages[0]["mcp_servers"]
    assert status["status"] == "failed" and "does not host that server" in status["error"]
    assert messages[-1]["result"] == "hi"
