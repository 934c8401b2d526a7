"""MCP servers end to end: the demo server (written with the ``mcp`` package) over stdio, streamable HTTP and SSE,
its tools called by the scripted model through the fake Messages API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentcli.mcp.report import servers_report
from agentcli.ui.extensions import extensions_summary
from tests.conftest import collect
from tests.mcp.conftest import request_tools, stdio_config, tool_results
from tests.messages import without_cache_control
from tests.waiting import DEADLINE_S


def call(tool_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": arguments}


def two_turns(*uses: dict[str, Any]) -> dict[str, Any]:
    return {"turns": [{"content": list(uses)}, {"content": [{"type": "text", "text": "Done."}]}]}


async def started(engine: Any) -> Any:
    manager = engine.config.extensions["mcp"]
    engine.start_services()
    await manager.wait_started(timeout=DEADLINE_S)
    return manager


async def test_stdio_tools_are_listed_called_and_answered(fake_api, make_engine):
    server = fake_api(two_turns(call("toolu_add", "mcp__demo__add", {"a": 2, "b": 3})))
    engine = make_engine(
        server, mcp_config=[stdio_config(DEMO_GREETING_SUFFIX="from env")], allowed_tools=["mcp__demo"]
    )
    await started(engine)
    messages = await collect(engine, "add two numbers")

    init = messages[0]
    assert init["mcp_servers"] == [{"name": "demo", "status": "connected"}]
    assert {"mcp__demo__add", "mcp__demo__greet", "mcp__demo__crash"} <= set(init["tools"])
    schema = request_tools(server.requests[0].body)["mcp__demo__add"]["input_schema"]
    assert schema["required"] == ["a", "b"] and schema["properties"]["a"]["type"] == "integer"
    [result] = tool_results(server.requests[1].body)
    assert without_cache_control(result) == {"type": "tool_result", "tool_use_id": "toolu_add", "content": "2 + 3 = 5"}
    assert messages[-1]["subtype"] == "success"


async def test_server_environment_is_expanded_from_ours(fake_api, make_engine, monkeypatch):
    monkeypatch.setenv("GREETING_FROM_USER", "expanded")
    config = json.dumps(
        {
            "mcpServers": {
                "demo": {
                    "command": "${PYTHON_FOR_TEST:-"
                    + json.loads(stdio_config())["mcpServers"]["demo"]["command"]
                    + "}",
                    "args": json.loads(stdio_config())["mcpServers"]["demo"]["args"],
                    "env": {"DEMO_GREETING_SUFFIX": "${GREETING_FROM_USER}"},
                }
            }
        }
    )
    server = fake_api(two_turns(call("toolu_greet", "mcp__demo__greet", {"name": "Ada"})))
    engine = make_engine(server, mcp_config=[config], allowed_tools=["mcp__demo__greet"])
    await started(engine)
    await collect(engine, "greet")
    [result] = tool_results(server.requests[1].body)
    assert result["content"] == "Hello, Ada! (expanded)"


@pytest.mark.parametrize("kind", ["http", "sse"])
async def test_http_and_sse_servers(fake_api, make_engine, http_server, kind):
    url = http_server(kind)
    config = json.dumps({"mcpServers": {"web": {"type": kind, "url": url}}})
    server = fake_api(two_turns(call("toolu_add", "mcp__web__add", {"a": 20, "b": 22})))
    engine = make_engine(server, mcp_config=[config], allowed_tools=["mcp__web__*"])
    await started(engine)
    messages = await collect(engine, "add")
    assert messages[0]["mcp_servers"] == [{"name": "web", "status": "connected"}]
    [result] = tool_results(server.requests[1].body)
    assert result["content"] == "20 + 22 = 42"


async def test_a_server_that_crashes_at_start_is_reported_and_the_session_goes_on(fake_api, make_engine):
    configs = [stdio_config("broken", DEMO_CRASH="1"), stdio_config("demo")]
    server = fake_api(
        two_turns(
            call("toolu_b", "mcp__broken__add", {"a": 1, "b": 1}), call("toolu_d", "mcp__demo__add", {"a": 1, "b": 2})
        )
    )
    engine = make_engine(server, mcp_config=configs, allowed_tools=["mcp__demo"])
    await started(engine)
    messages = await collect(engine, "go")
    broken, demo = messages[0]["mcp_servers"]
    assert broken["name"] == "broken" and broken["status"] == "failed"
    assert "refusing to start" in broken["error"]
    assert demo == {"name": "demo", "status": "connected"}
    first, second = tool_results(server.requests[1].body)
    assert first["is_error"] and "No such tool available: mcp__broken__add" in first["content"]
    assert second["content"] == "1 + 2 = 3"
    assert messages[-1]["subtype"] == "success"
    title, detail = servers_report(engine.config.extensions["mcp"])
    assert title == "MCP servers (1 failed · 1 connected)"
    assert "broken · failed" in detail and "refusing to start" in detail and "tool mcp__demo__add" in detail
    assert "prompt /demo:review" in detail and "resource @demo:demo://notes" in detail
    assert extensions_summary(engine) == "MCP 1 failed · 1 connected"


async def test_a_call_to_a_server_that_died_is_an_error_result(fake_api, make_engine):
    scenario = {
        "turns": [
            {"content": [call("toolu_crash", "mcp__demo__crash", {})]},
            {"content": [call("toolu_add", "mcp__demo__add", {"a": 1, "b": 1})]},
            {"content": [{"type": "text", "text": "The server is gone."}]},
        ]
    }
    server = fake_api(scenario)
    engine = make_engine(server, mcp_config=[stdio_config()], permission_mode="bypassPermissions")
    manager = await started(engine)
    messages = await collect(engine, "go")
    [crashed] = tool_results(server.requests[1].body)
    assert crashed["is_error"]
    [after] = tool_results(server.requests[2].body)
    assert after["is_error"] and "MCP server demo is not connected" in after["content"]
    assert manager.statuses()[0]["status"] == "failed"
    assert messages[-1]["subtype"] == "success"


async def test_a_deny_rule_blocks_the_servers_tools(fake_api, make_engine):
    server = fake_api(two_turns(call("toolu_add", "mcp__demo__add", {"a": 1, "b": 1})))
    engine = make_engine(
        server, mcp_config=[stdio_config()], disallowed_tools=["mcp__demo__*"], permission_mode="bypassPermissions"
    )
    await started(engine)
    messages = await collect(engine, "go")
    # As in Claude Code, the model is not told about denied tools; a call made anyway never reaches the server.
    assert not any(name.startswith("mcp__demo__") for name in request_tools(server.requests[0].body))
    assert "mcp__demo__add" not in messages[0]["tools"]
    [result] = tool_results(server.requests[1].body)
    assert result["is_error"] and "No such tool available: mcp__demo__add" in result["content"]


async def test_a_bare_deny_rule_hides_only_the_tools_it_names(fake_api, make_engine):
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "hi"}]}]})
    engine = make_engine(server, mcp_config=[stdio_config()], disallowed_tools=["mcp__demo__crash"])
    await started(engine)
    await collect(engine, "go")
    offered = request_tools(server.requests[0].body)
    assert "mcp__demo__add" in offered and "mcp__demo__crash" not in offered


async def test_an_sdk_hosted_server_without_a_driving_program_is_reported(fake_api, make_engine):
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "hi"}]}]})
    config = json.dumps({"mcpServers": {"calc": {"type": "sdk", "name": "calc"}}})
    engine = make_engine(server, mcp_config=[config])
    await started(engine)
    messages = await collect(engine, "hi")
    [status] = messages[0]["mcp_servers"]
    assert status["status"] == "failed" and "--input-format stream-json" in status["error"]
    assert messages[-1]["result"] == "hi"


async def test_the_first_request_does_not_wait_for_a_slow_server(fake_api, make_engine, tmp_path: Path):
    gate = tmp_path / "gate"
    server = fake_api(
        {"turns": [{"content": [{"type": "text", "text": "one"}]}, {"content": [{"type": "text", "text": "two"}]}]}
    )
    engine = make_engine(server, mcp_config=[stdio_config(DEMO_GATE=str(gate))])
    first = await collect(engine, "first")
    assert first[0]["mcp_servers"] == [{"name": "demo", "status": "pending"}]
    assert not any(name.startswith("mcp__") for name in request_tools(server.requests[0].body))
    gate.write_text("open")
    await started(engine)
    await collect(engine, "second")
    assert "mcp__demo__add" in request_tools(server.requests[1].body)


async def test_project_mcp_json_runs_only_in_a_trusted_folder(fake_api, make_engine, project: Path):
    (project / ".mcp.json").write_text(stdio_config(), encoding="utf-8")
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "hi"}]}]})
    untrusted = make_engine(server)
    assert "mcp" not in untrusted.config.extensions
    trusted = make_engine(server, trust_project=True)
    assert [c.name for c in trusted.config.extensions["mcp"].connections] == ["demo"]


def test_headless_run_reports_servers_in_init_and_rejects_a_broken_config(fake_api, run_cli):
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "hi"}]}]})
    done = run_cli(
        "-p", "hi", "--output-format", "stream-json", "--verbose", "--mcp-config", stdio_config(), server=server
    )
    assert done.returncode == 0, done.stderr
    init = json.loads(done.stdout.splitlines()[0])
    [entry] = init["mcp_servers"]
    assert entry["name"] == "demo" and entry["status"] in ("pending", "connected")
    broken = run_cli("-p", "hi", "--mcp-config", '{"mcpServers": {"x": {"type": "http"}}}', server=server)
    assert broken.returncode == 2
    assert "mcpServers.x" in broken.stderr and "url" in broken.stderr


async def test_prompts_become_commands_and_resources_can_be_mentioned(fake_api, make_engine):
    from agentcli.mcp.prompts import expand_prompt, prompt_commands, resolve_mentions, resource_mentions

    server = fake_api({"turns": []})
    engine = make_engine(server, mcp_config=[stdio_config()])
    manager = await started(engine)
    [command] = prompt_commands(manager)
    assert (command.name, command.description, command.arguments) == (
        "mcp__demo__review",
        "Ask for a review of a topic.",
        ("topic",),
    )
    assert (
        await expand_prompt(manager, "/mcp__demo__review the parser module")
        == "Please review the parser module carefully."
    )
    assert await expand_prompt(manager, "/mcp__demo__nothing") is None
    assert resource_mentions(manager) == ["@demo:demo://notes"]
    from agentcli.commands import session_registry

    listed = session_registry(engine).find("mcp__demo__review")
    assert listed is not None and listed.argument_hint == "<topic>" and listed.source == "mcp"
    [block] = await resolve_mentions(manager, "summarise @demo:demo://notes please")
    assert block == '<resource server="demo" uri="demo://notes">\nNotes from the demo server.\n</resource>'


async def test_a_typed_mcp_prompt_and_mention_reach_the_model(fake_api, make_engine):
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "Reviewed."}]}]})
    engine = make_engine(server, mcp_config=[stdio_config()])
    await started(engine)
    await collect(engine, "/mcp__demo__review @demo:demo://notes")
    sent = json.dumps(server.requests[0].body["messages"][0]["content"])
    assert "Please review @demo:demo://notes carefully." in sent
    assert "Notes from the demo server." in sent
