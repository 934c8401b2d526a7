"""PreToolUse decisions weighed against the rules with Claude Code's precedence, in real sessions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcli.tools.permissions import PermissionAnswer, PermissionRequest
from tests.conftest import collect


def _decision(decision: str, reason: str = "policy", updated: dict[str, Any] | None = None) -> str:
    output: dict[str, Any] = {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": reason,
    }
    if updated is not None:
        output["updatedInput"] = updated
    hook = {"type": "command", "command": f"echo '{json.dumps({'hookSpecificOutput': output})}'"}
    return json.dumps({"hooks": {"PreToolUse": [{"hooks": [hook]}]}})


def _turns(name: str, tool_input: dict[str, Any]) -> dict:
    return {
        "turns": [
            {"content": [{"type": "tool_use", "id": "toolu_1", "name": name, "input": tool_input}]},
            {"content": [{"type": "text", "text": "done"}]},
        ]
    }


def _result_block(server) -> dict[str, Any]:
    return server.requests[1].body["messages"][2]["content"][0]


async def test_a_deny_rule_beats_a_hooks_allow(fake_api, make_engine, project: Path):
    marker = project / "marker"
    server = fake_api(_turns("Bash", {"command": f"touch {marker}"}))
    engine = make_engine(server, settings_flag=_decision("allow"), disallowed_tools=["Bash(touch *)"])
    messages = await collect(engine, "go")
    assert not marker.exists() and _result_block(server)["is_error"] is True
    assert "denied by the rule Bash(touch *)" in _result_block(server)["content"]
    assert [d["tool_use_id"] for d in messages[-1]["permission_denials"]] == ["toolu_1"]


async def test_an_ask_rule_still_asks_after_a_hooks_allow(fake_api, make_engine, project: Path):
    marker = project / "marker"
    server = fake_api(_turns("Bash", {"command": f"touch {marker}"}))
    settings = {**json.loads(_decision("allow")), "permissions": {"ask": ["Bash(touch *)"]}}
    engine = make_engine(server, settings_flag=json.dumps(settings), allowed_tools=["Bash"])
    messages = await collect(engine, "go")
    assert not marker.exists() and "asks for approval" in _result_block(server)["content"]
    assert len(messages[-1]["permission_denials"]) == 1


async def test_a_hooks_allow_lifts_an_ordinary_question(fake_api, make_engine, project: Path):
    marker = project / "marker"
    server = fake_api(_turns("Bash", {"command": f"touch {marker}"}))
    messages = await collect(make_engine(server, settings_flag=_decision("allow")), "go")
    assert marker.exists() and messages[-1]["permission_denials"] == []


async def test_a_hooks_ask_is_denied_headless_even_for_a_read_the_rules_allow(fake_api, make_engine, project: Path):
    server = fake_api(_turns("Read", {"file_path": str(project / "README.md")}))
    messages = await collect(make_engine(server, settings_flag=_decision("ask", "check with a human")), "go")
    block = _result_block(server)
    assert block["is_error"] is True and "Demo project" not in block["content"]
    assert "check with a human" in block["content"]
    assert [d["tool_name"] for d in messages[-1]["permission_denials"]] == ["Read"]


async def test_a_hooks_ask_asks_the_user_interactively(fake_api, make_engine, project: Path):
    asked: list[PermissionRequest] = []

    async def ask(request: PermissionRequest) -> PermissionAnswer:
        asked.append(request)
        return PermissionAnswer("allow_once")

    server = fake_api(_turns("Read", {"file_path": str(project / "README.md")}))
    messages = await collect(
        make_engine(server, settings_flag=_decision("ask", "second opinion"), ask_permission=ask), "go"
    )
    assert [request.reason for request in asked] == ["a PreToolUse hook asks for approval: second opinion"]
    assert "Demo project" in _result_block(server)["content"] and messages[-1]["permission_denials"] == []


async def test_updated_input_is_checked_against_the_rules(fake_api, make_engine, project: Path):
    marker = project / "marker"
    server = fake_api(_turns("Bash", {"command": "echo harmless"}))
    engine = make_engine(
        server,
        settings_flag=_decision("allow", updated={"command": f"touch {marker}"}),
        disallowed_tools=["Bash(touch *)"],
    )
    messages = await collect(engine, "go")
    assert not marker.exists() and "denied by the rule" in _result_block(server)["content"]
    assert len(messages[-1]["permission_denials"]) == 1


async def test_updated_input_without_a_decision_asks_when_it_leaves_the_project(
    fake_api, make_engine, project: Path, tmp_path: Path
):
    outside = tmp_path / "outside.txt"
    outside.write_text("private")
    update = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"file_path": str(outside)}}}
    settings = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": f"echo '{json.dumps(update)}'"}]}]}}
    server = fake_api(_turns("Read", {"file_path": str(project / "README.md")}))
    messages = await collect(make_engine(server, settings_flag=json.dumps(settings)), "go")
    assert "private" not in _result_block(server)["content"] and len(messages[-1]["permission_denials"]) == 1
