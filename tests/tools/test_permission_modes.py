"""dontAsk and auto modes, and an approval that changes the input: the rules judge what will really run."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.config.modes import CYCLED_MODES, PERMISSION_MODES
from agentcli.tools.base import ToolCall, ToolEnv
from agentcli.tools.permissions import PermissionAnswer, PermissionPolicy, PermissionRequest
from agentcli.tools.rules import parse_rule
from tests.tools.conftest import tool_named


def _call(project: Path) -> ToolCall:
    return ToolCall(ToolEnv(project_dir=project), "toolu_1")


class Face:
    def __init__(self, answer: PermissionAnswer) -> None:
        self.answer = answer
        self.requests: list[PermissionRequest] = []

    async def __call__(self, request: PermissionRequest) -> PermissionAnswer:
        self.requests.append(request)
        return self.answer


def test_every_mode_is_known_to_the_policy_and_the_cycle_is_a_subset(project: Path):
    for mode in PERMISSION_MODES:
        PermissionPolicy(project, mode=mode)
    assert set(CYCLED_MODES) <= set(PERMISSION_MODES)
    with pytest.raises(ValueError, match="dontAsk"):
        PermissionPolicy(project, mode="yolo")


async def test_dont_ask_refuses_what_the_rules_leave_open_without_asking(project: Path):
    face = Face(PermissionAnswer("allow_once"))
    policy = PermissionPolicy(project, mode="dontAsk", ask=face, rules=[parse_rule("Bash(npm test)", "allow", "cli")])
    bash = tool_named("Bash")
    assert (await policy(bash, {"command": "npm test"}, _call(project))).behavior == "allow"
    denied = await policy(bash, {"command": "make deploy"}, _call(project))
    assert denied.behavior == "deny" and "dontAsk" in denied.message
    assert face.requests == []


async def test_auto_asks_like_default(project: Path):
    face = Face(PermissionAnswer("allow_once"))
    policy = PermissionPolicy(project, mode="auto", ask=face)
    assert (await policy(tool_named("Bash"), {"command": "make"}, _call(project))).behavior == "allow"
    assert len(face.requests) == 1


async def test_changed_input_from_an_approval_is_checked_against_deny_rules(project: Path):
    face = Face(PermissionAnswer("allow_once", updated_input={"command": "rm -rf build"}))
    policy = PermissionPolicy(project, ask=face, rules=[parse_rule("Bash(rm *)", "deny", "cli")])
    decision = await policy(tool_named("Bash"), {"command": "make clean"}, _call(project))
    assert decision.behavior == "deny" and "Bash(rm *)" in decision.message


async def test_changed_input_that_passes_the_rules_is_what_runs(project: Path):
    face = Face(PermissionAnswer("allow_once", updated_input={"command": "make test"}))
    policy = PermissionPolicy(project, ask=face, rules=[parse_rule("Bash(rm *)", "deny", "cli")])
    decision = await policy(tool_named("Bash"), {"command": "make clean"}, _call(project))
    assert decision.behavior == "allow" and decision.updated_input == {"command": "make test"}
