"""The edges of the protocol without a process: which stdin lines are frames, and permission updates both ways."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_agent_sdk import PermissionUpdate

from agentcli.tools.permissions import PermissionPolicy
from agentcli.ui.protocol.frames import BadFrame, ControlRequestFrame, UserFrame, parse_frame
from agentcli.ui.protocol.host import apply_updates, suggestion_updates


def test_frames_are_told_apart_by_type():
    user, _ = parse_frame('{"type": "user", "message": {"role": "user", "content": "hi"}, "uuid": "u1"}')
    assert isinstance(user, UserFrame) and user.message.content == "hi" and user.uuid == "u1"
    request, _ = parse_frame('{"type": "control_request", "request_id": "r1", "request": {"subtype": "interrupt"}}')
    assert isinstance(request, ControlRequestFrame) and request.subtype == "interrupt"


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("{nope", "not valid JSON"),
        ('{"type": "assistant", "message": {}}', "not a message agentcli reads"),
        ('{"type": "user", "message": {"role": "assistant", "content": "x"}}', "not a message agentcli reads"),
        ('{"type": "control_request", "request": {}}', "not a message agentcli reads"),
    ],
)
def test_bad_lines_say_what_is_wrong(line, why):
    with pytest.raises(BadFrame, match=why):
        parse_frame(line)


def test_suggestions_go_out_in_the_sdks_shape_and_updates_come_back_as_rules(project: Path):
    updates = suggestion_updates(("Bash(npm test:*)", "Read"))
    parsed = [PermissionUpdate.from_dict(update) for update in updates]  # the SDK reads them
    assert parsed[0].rules is not None and parsed[0].rules[0].tool_name == "Bash"
    policy = PermissionPolicy(project)
    apply_updates(
        policy,
        [
            *updates,
            {"type": "setMode", "mode": "plan"},
            "junk",
            {"type": "addRules", "behavior": "deny", "rules": [{"toolName": "Write"}]},
        ],
    )
    assert [(str(rule), rule.behavior) for rule in policy.rules] == [
        ("Bash(npm test:*)", "allow"),
        ("Read", "allow"),
        ("Write", "deny"),
    ]
