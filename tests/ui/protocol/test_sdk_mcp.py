"""MCP servers the driving program hosts in its own process (``create_sdk_mcp_server``): agentcli reaches them
with ``mcp_message`` control requests and offers their tools like any MCP server's."""

from __future__ import annotations

import json
from typing import Any

from claude_agent_sdk import ResultMessage, SystemMessage, create_sdk_mcp_server, tool

from tests.messages import tool_result
from tests.ui.protocol.conftest import collect, result_text, text_turn, tool_turn


def calculator(calls: list[dict[str, Any]]) -> Any:
    @tool("add", "Add two numbers", {"a": int, "b": int})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": f"{args['a']} + {args['b']} = {args['a'] + args['b']}"}]}

    @tool("fail", "Always fails", {})
    async def fail(args: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("the calculator is out of order")

    return create_sdk_mcp_server("calc", tools=[add, fail])


async def test_an_sdk_hosted_server_is_offered_from_the_first_request_and_called_in_process(sdk_options):
    calls: list[dict[str, Any]] = []
    options, server = sdk_options(
        [tool_turn("mcp__calc__add", {"a": 2, "b": 3}, "toolu_add"), text_turn("It is 5.")],
        mcp_servers={"calc": calculator(calls)},
        allowed_tools=["mcp__calc__add"],
    )
    messages = await collect("what is 2 + 3?", options)

    init = messages[0]
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    assert init.data["mcp_servers"] == [{"name": "calc", "status": "connected"}]
    assert {"mcp__calc__add", "mcp__calc__fail"} <= set(init.data["tools"])
    offered = {tool["name"]: tool for tool in server.requests[0].body["tools"]}
    schema = offered["mcp__calc__add"]["input_schema"]
    assert offered["mcp__calc__add"]["description"] == "Add two numbers"
    assert schema["properties"] == {"a": {"type": "integer"}, "b": {"type": "integer"}}
    assert calls == [{"a": 2, "b": 3}]
    assert result_text(tool_result(server.requests[1], "toolu_add")) == "2 + 3 = 5"
    result = messages[-1]
    assert isinstance(result, ResultMessage) and not result.is_error and result.result == "It is 5."


async def test_a_failing_hosted_tool_is_an_error_result_and_a_deny_rule_applies(sdk_options):
    calls: list[dict[str, Any]] = []
    turn = {
        "content": [
            {"type": "tool_use", "id": "toolu_fail", "name": "mcp__calc__fail", "input": {}},
            {"type": "tool_use", "id": "toolu_add", "name": "mcp__calc__add", "input": {"a": 1, "b": 1}},
        ]
    }
    options, server = sdk_options(
        [turn, text_turn("Both failed.")],
        mcp_servers={"calc": calculator(calls)},
        allowed_tools=["mcp__calc__fail"],
        disallowed_tools=["mcp__calc__add"],
    )
    messages = await collect("try", options)
    failed = tool_result(server.requests[1], "toolu_fail")
    assert failed["is_error"] and "the calculator is out of order" in result_text(failed)
    denied = tool_result(server.requests[1], "toolu_add")
    assert denied["is_error"] and calls == []
    assert "mcp__calc__add" not in {tool["name"] for tool in server.requests[0].body["tools"]}
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "Both failed."


async def test_a_hosted_server_the_program_does_not_have_is_reported_and_the_session_goes_on(sdk_options):
    ghost = json.dumps({"mcpServers": {"ghost": {"type": "sdk", "name": "ghost"}}})
    options, server = sdk_options(
        [text_turn("Still here.")],
        mcp_servers={"calc": calculator([])},
        extra_args={"mcp-config": ghost},  # a second --mcp-config naming a server the program does not host
    )
    messages = await collect("hello", options)
    calc, ghost_status = sorted(messages[0].data["mcp_servers"], key=lambda s: s["name"])
    assert calc == {"name": "calc", "status": "connected"}
    assert ghost_status["name"] == "ghost" and ghost_status["status"] == "failed"
    assert "Server 'ghost' not found" in ghost_status["error"]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "Still here."
    assert "mcp__calc__add" in {tool["name"] for tool in server.requests[0].body["tools"]}


async def test_the_program_sees_its_servers_state_and_tools(sdk_options):
    from claude_agent_sdk import ClaudeSDKClient

    options, _server = sdk_options([text_turn("Hi.")], mcp_servers={"calc": calculator([])})
    async with ClaudeSDKClient(options=options) as client:
        await client.query("hello")
        _ = [message async for message in client.receive_response()]
        status = await client.get_mcp_status()
    [calc] = status["mcpServers"]
    assert calc["name"] == "calc" and calc["status"] == "connected"
    assert calc["config"] == {"type": "sdk", "name": "calc"}
    assert calc["serverInfo"]["name"] == "calc"
    assert [tool["name"] for tool in calc["tools"]] == ["add", "fail"]
    assert calc["tools"][0]["description"] == "Add two numbers"


async def test_the_program_can_switch_its_server_off_and_on_and_reconnect_it(sdk_options):
    import pytest
    from claude_agent_sdk import ClaudeSDKClient

    def offered(request: Any) -> bool:
        return "mcp__calc__add" in {tool["name"] for tool in request.body["tools"]}

    options, server = sdk_options(
        [text_turn("one"), text_turn("two"), text_turn("three")], mcp_servers={"calc": calculator([])}
    )
    async with ClaudeSDKClient(options=options) as client:
        await client.query("first")
        _ = [message async for message in client.receive_response()]
        await client.toggle_mcp_server("calc", enabled=False)
        off = await client.get_mcp_status()
        await client.query("second")
        _ = [message async for message in client.receive_response()]
        await client.toggle_mcp_server("calc", enabled=True)
        await client.reconnect_mcp_server("calc")
        await client.query("third")
        _ = [message async for message in client.receive_response()]
        on = await client.get_mcp_status()
        with pytest.raises(Exception, match="no MCP server named 'nope'"):
            await client.reconnect_mcp_server("nope")
    assert [offered(request) for request in server.requests] == [True, False, True]
    assert off["mcpServers"][0]["status"] == "disabled" and "tools" not in off["mcpServers"][0]
    assert on["mcpServers"][0]["status"] == "connected"
