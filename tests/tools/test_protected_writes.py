"""Protected paths: a file tool's write there asks, in every mode, names the path, and opens only to a rule that
names it; with nobody to ask it is refused with the line that would allow it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.bootstrap import SessionOptions, permission_policy
from agentcli.config.settings import load_settings
from agentcli.tools.base import ToolCall, ToolEnv
from agentcli.tools.permissions import PermissionPolicy
from agentcli.tools.rules import parse_rule
from tests.tools.conftest import tool_named

WRITING_MODES = ["default", "acceptEdits", "bypassPermissions", "auto"]
IN_PROJECT = [
    ".git/config",
    ".git/hooks/pre-commit",
    ".git/HEAD",
    ".git/commondir",
    ".git/info/exclude",
    ".GIT/config",
    ".agentcli/settings.json",
    ".claude/settings.local.json",
    ".claude/skills/x/SKILL.md",
    ".mcp.json",
    "sub/.git/hooks/post-checkout",
    ".vscode/tasks.json",
    ".husky/pre-commit",
    ".envrc",
    ".gitmodules",
]


def _write(path: Path) -> dict[str, str]:
    return {"file_path": str(path), "content": "x"}


def _verdict(policy: PermissionPolicy, tool: str, tool_input: dict[str, str], project: Path):
    return policy.evaluate(tool_named(tool), tool_input, ToolEnv(project))


@pytest.mark.parametrize("mode", WRITING_MODES)
@pytest.mark.parametrize("relative", IN_PROJECT)
def test_a_write_to_a_protected_path_in_the_project_asks_in_every_mode(project: Path, mode: str, relative: str):
    policy = PermissionPolicy(project, mode=mode, rules=[parse_rule("Edit", "allow", "cliArg")])
    verdict = _verdict(policy, "Write", _write(project / relative), project)
    assert verdict.behavior == "ask" and verdict.firm, verdict
    assert "protected path" in verdict.reason and relative.split("/")[0] in verdict.reason


def test_a_git_file_pointing_elsewhere_and_a_symlink_into_git_are_protected(project: Path, tmp_path: Path):
    (project / ".git").write_text(f"gitdir: {tmp_path / 'elsewhere'}\n")
    (project / "innocent").symlink_to(project / ".git")
    policy = PermissionPolicy(project, mode="bypassPermissions")
    edit = {"file_path": str(project / ".git"), "old_string": "gitdir", "new_string": "gitdir"}
    assert _verdict(policy, "Edit", edit, project).behavior == "ask"
    assert _verdict(policy, "Write", _write(project / "innocent"), project).behavior == "ask"


def test_plan_mode_refuses_and_reads_stay_free(project: Path):
    (project / ".git").mkdir()
    (project / ".git" / "config").write_text("[core]\n")
    assert _verdict(
        PermissionPolicy(project, mode="plan"), "Write", _write(project / ".git/config"), project
    ).behavior == ("deny")
    read = {"file_path": str(project / ".git" / "config")}
    assert _verdict(PermissionPolicy(project), "Read", read, project).behavior == "allow"


HOME_FILES = [".bashrc", ".profile", ".zshrc", ".bash_profile", ".ssh/config", ".gitconfig", ".local/bin/git"]


@pytest.mark.parametrize("relative", HOME_FILES)
def test_when_the_project_is_home_its_start_up_files_are_protected(hermetic_home: Path, relative: str):
    policy = PermissionPolicy(hermetic_home, mode="acceptEdits", home=hermetic_home)
    verdict = _verdict(policy, "Write", _write(hermetic_home / relative), hermetic_home)
    assert verdict.behavior == "ask" and "protected path" in verdict.reason
    assert _verdict(policy, "Write", _write(hermetic_home / "notes.md"), hermetic_home).behavior == "allow"


def test_agentcli_and_claude_settings_folders_are_protected_wherever_they_are(project: Path, hermetic_home: Path):
    policy = PermissionPolicy(project, mode="bypassPermissions", home=hermetic_home)
    for target in (
        hermetic_home / "config" / "agentcli" / "settings.json",  # XDG_CONFIG_HOME moved it
        hermetic_home / "data" / "agentcli" / "projects" / "x.jsonl",
        hermetic_home / ".claude" / "settings.json",
        hermetic_home / ".bashrc",  # outside the project: bypassPermissions alone would write it
    ):
        verdict = _verdict(policy, "Write", _write(target), project)
        assert verdict.behavior == "ask" and "protected path" in verdict.reason, target
    assert _verdict(policy, "Write", _write(hermetic_home / "elsewhere.txt"), project).behavior == "allow"


def test_only_a_rule_that_names_the_protected_path_opens_it(project: Path):
    hook = project / ".git" / "hooks" / "pre-commit"
    skill = project / ".claude" / "skills" / "x" / "SKILL.md"
    for wide in ("Edit", "Edit(**)", "Edit(/**)", "Write(./**)"):
        policy = PermissionPolicy(project, mode="bypassPermissions", rules=[parse_rule(wide, "allow", "cliArg")])
        assert _verdict(policy, "Write", _write(hook), project).behavior == "ask", wide
    exact = PermissionPolicy(project, rules=[parse_rule("Edit(/.git/hooks/pre-commit)", "allow", "cliArg")])
    assert _verdict(exact, "Write", _write(hook), project).behavior == "allow"
    assert _verdict(exact, "Write", _write(project / ".git" / "hooks" / "post-commit"), project).behavior == "ask"
    skills = PermissionPolicy(project, rules=[parse_rule("Edit(/.claude/skills/**)", "allow", "cliArg")])
    assert _verdict(skills, "Write", _write(skill), project).behavior == "allow"
    assert _verdict(skills, "Write", _write(project / ".claude" / "settings.json"), project).behavior == "ask"


def test_a_hooks_allow_does_not_lift_the_question(project: Path):
    policy = PermissionPolicy(project, mode="acceptEdits")
    tool_input = _write(project / ".mcp.json")
    verdict = policy.evaluate(tool_named("Write"), tool_input, ToolEnv(project), ("allow", "hook says fine"))
    assert verdict.behavior == "ask"


async def test_nobody_to_ask_refuses_with_the_line_that_allows_it(project: Path):
    policy = PermissionPolicy(project, mode="bypassPermissions")
    target = project / ".agentcli" / "settings.json"
    decision = await policy(tool_named("Write"), _write(target), ToolCall(ToolEnv(project), "toolu_1"))
    assert decision.behavior == "deny"
    assert "protected path" in decision.message and str(target) in decision.message
    rule = f"Edit(/{target})"
    assert f'"permissions": {{"allow": ["{rule}"]}}' in decision.message
    assert f'--allowedTools "{rule}"' in decision.message
    opened = PermissionPolicy(project, mode="bypassPermissions", rules=[parse_rule(rule, "allow", "cliArg")])
    assert (await opened(tool_named("Write"), _write(target), ToolCall(ToolEnv(project), "t2"))).behavior == "allow"


def test_a_redirection_into_a_protected_path_asks_even_when_a_rule_or_the_mode_would_allow(project: Path):
    rules = [parse_rule("Bash(echo *)", "allow", "cliArg")]
    for mode in ("default", "bypassPermissions"):
        policy = PermissionPolicy(project, mode=mode, rules=rules)
        for command in ("echo evil > .git/config", "echo x >> sub/.git/hooks/pre-push", "echo {} > .mcp.json"):
            verdict = policy.evaluate(tool_named("Bash"), {"command": command}, ToolEnv(project))
            assert verdict.behavior == "ask" and "protected path" in verdict.reason, (mode, command)
            assert verdict.grants == ()  # "for this session" could not honestly open it
        fine = policy.evaluate(tool_named("Bash"), {"command": "echo x > notes.txt"}, ToolEnv(project))
        assert fine.behavior == "allow"


def test_an_exact_rule_in_the_users_settings_file_opens_the_path(project: Path, hermetic_home: Path):
    target = project / ".claude" / "settings.json"
    user = hermetic_home / "config" / "agentcli" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text(json.dumps({"permissions": {"allow": [f"Write(/{target})"], "defaultMode": "acceptEdits"}}))
    policy, _ = permission_policy(SessionOptions(cwd=project), load_settings(project))
    assert policy.mode == "acceptEdits"
    assert _verdict(policy, "Write", _write(target), project).behavior == "allow"
    assert _verdict(policy, "Write", _write(project / ".claude" / "other.json"), project).behavior == "ask"
