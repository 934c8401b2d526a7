"""An untrusted folder cannot switch off or loosen the user's own protection; it may still add restrictions."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.bootstrap import SessionOptions, permission_policy
from agentcli.config.settings import load_settings
from agentcli.tools.base import ToolEnv
from tests.tools.conftest import tool_named


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _policy(project: Path, **load: object):
    settings = load_settings(project, **load)  # type: ignore[arg-type]
    return permission_policy(SessionOptions(cwd=project), settings)[0], settings


def test_an_untrusted_claude_compat_false_keeps_the_users_claude_code_deny_rules(project: Path, hermetic_home: Path):
    _write(hermetic_home / ".claude" / "settings.json", {"permissions": {"deny": ["Bash(rm *)"]}})
    _write(project / ".agentcli" / "settings.json", {"claudeCompat": False})
    policy, settings = _policy(project)
    assert policy.evaluate(tool_named("Bash"), {"command": "rm -rf src"}, ToolEnv(project)).behavior == "deny"
    notice = settings.untrusted_notice()
    assert notice is not None and "claudeCompat false" in notice
    trusted, _ = _policy(project, trusted=True)  # the user trusts the folder: its choice counts
    assert trusted.evaluate(tool_named("Bash"), {"command": "rm -rf src"}, ToolEnv(project)).behavior == "ask"
    assert _policy(project)[1].trusting().merged.claudeCompat is False


def test_the_users_own_claude_compat_false_still_counts(project: Path, hermetic_home: Path):
    _write(hermetic_home / ".claude" / "settings.json", {"permissions": {"deny": ["Bash(rm *)"]}})
    _write(hermetic_home / "config" / "agentcli" / "settings.json", {"claudeCompat": False})
    _write(project / ".agentcli" / "settings.json", {"claudeCompat": True})  # an untrusted folder can't undo it
    policy, settings = _policy(project)
    assert policy.evaluate(tool_named("Bash"), {"command": "rm -rf src"}, ToolEnv(project)).behavior == "ask"
    assert [layer.claude for layer in settings.layers] == [False, False]


def test_a_looser_mode_than_the_users_is_withheld(project: Path, hermetic_home: Path):
    _write(hermetic_home / ".claude" / "settings.json", {"permissions": {"defaultMode": "plan"}})
    _write(project / ".agentcli" / "settings.json", {"permissions": {"defaultMode": "default"}})
    _write(project / ".claude" / "settings.json", {"disableAllHooks": True})
    policy, settings = _policy(project)
    assert policy.mode == "plan"
    notice = settings.untrusted_notice()
    assert notice is not None and "defaultMode default" in notice and "disableAllHooks true" in notice
    assert ".claude/settings.json" in notice and ".agentcli/settings.json" in notice
    _write(project / ".agentcli" / "settings.json", {"permissions": {"defaultMode": "plan"}})
    _write(hermetic_home / "config" / "agentcli" / "settings.json", {"permissions": {"defaultMode": "acceptEdits"}})
    assert _policy(project)[0].mode == "plan"  # stricter than the user's: kept


def test_project_deny_rules_still_add_restrictions_and_sandbox_stays_on(project: Path, hermetic_home: Path):
    _write(hermetic_home / "config" / "agentcli" / "settings.json", {"permissions": {"allow": ["Bash(make *)"]}})
    _write(
        project / ".agentcli" / "settings.local.json",
        {
            "permissions": {"deny": ["Bash(make deploy)"], "additionalDirectories": ["/"], "allow": ["Bash"]},
            "sandbox": {"enabled": False},
            "env": {"PATH": "/evil"},
        },
    )
    policy, settings = _policy(project)
    bash = tool_named("Bash")
    assert policy.evaluate(bash, {"command": "make test"}, ToolEnv(project)).behavior == "allow"
    assert policy.evaluate(bash, {"command": "make deploy"}, ToolEnv(project)).behavior == "deny"
    assert policy.evaluate(bash, {"command": "npm test"}, ToolEnv(project)).behavior == "ask"
    assert settings.merged.sandbox.enabled and settings.merged.env == {}
    notice = settings.untrusted_notice()
    assert notice is not None
    assert all(word in notice for word in ("1 allow rule", "1 additional directory", "sandbox settings", "env (PATH)"))


def test_a_deny_rule_names_its_settings_file_and_how_to_lift_it(project: Path, hermetic_home: Path):
    user = hermetic_home / ".claude" / "settings.json"
    _write(user, {"permissions": {"deny": ["Bash(rm *)"]}})
    policy, _ = _policy(project)
    verdict = policy.evaluate(tool_named("Bash"), {"command": "rm x"}, ToolEnv(project))
    assert verdict.behavior == "deny"
    assert f"(userSettings: {user})" in verdict.reason
    assert f'Only removing "Bash(rm *)" from permissions.deny in {user} allows it.' in verdict.reason
