from __future__ import annotations

import json
from pathlib import Path

from agentcli.config.settings import load_settings


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)


def test_layers_merge_lists_and_override_scalars(project: Path, hermetic_home: Path):
    _write(
        hermetic_home / "config" / "agentcli" / "settings.json",
        {"model": "claude-haiku-5-5", "permissions": {"allow": ["Read"]}, "env": {"A": "user", "B": "user"}},
    )
    _write(
        project / ".agentcli" / "settings.json",
        {"model": "claude-sonnet-5-5", "permissions": {"allow": ["Bash(git *)"]}},
    )
    _write(project / ".agentcli" / "settings.local.json", {"env": {"B": "local"}, "permissions": {"deny": ["Edit"]}})
    loaded = load_settings(
        project, '{"model": "claude-opus-5-5", "permissions": {"allow": ["Read", "Glob"]}}', trusted=True
    )
    assert loaded.errors == []
    assert loaded.layer_sources() == ["userSettings", "projectSettings", "localSettings", "flagSettings"]
    merged = loaded.merged
    assert merged.model == "claude-opus-5-5"
    assert merged.permissions.allow == ["Read", "Bash(git *)", "Glob"]
    assert merged.permissions.deny == ["Edit"]
    assert merged.env == {"A": "user", "B": "local"}


def test_a_broken_file_is_reported_and_the_others_still_load(project: Path, hermetic_home: Path):
    _write(hermetic_home / "config" / "agentcli" / "settings.json", {"model": "claude-haiku-5-5"})
    _write(project / ".agentcli" / "settings.json", '{\n  "hooks": {"Stop": "not a list"}\n}')
    loaded = load_settings(project)
    assert len(loaded.errors) == 1
    assert str(loaded.errors[0]).startswith(f"{project / '.agentcli' / 'settings.json'}:2: hooks.Stop")
    assert loaded.merged.model == "claude-haiku-5-5"


def test_settings_flag_file_and_missing_file(project: Path, tmp_path: Path):
    extra = tmp_path / "extra.json"
    _write(extra, {"maxRetries": 2, "unknownKey": True})
    loaded = load_settings(project, str(extra))
    assert loaded.merged.maxRetries == 2 and loaded.errors == []
    missing = load_settings(project, str(tmp_path / "nope.json"))
    assert "nope.json" in str(missing.errors[0])


def test_empty_file_is_empty_settings(project: Path):
    _write(project / ".agentcli" / "settings.json", "")
    assert load_settings(project).errors == []


def test_claude_code_files_are_lower_layers_under_agentcli(project: Path, hermetic_home: Path):
    _write(hermetic_home / ".claude" / "settings.json", {"model": "claude-haiku-5-5", "env": {"A": "claude-user"}})
    _write(project / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(make *)"]}, "env": {"B": "claude"}})
    _write(project / ".claude" / "settings.local.json", {"env": {"C": "claude-local"}})
    _write(project / ".agentcli" / "settings.json", {"env": {"B": "agentcli"}})
    loaded = load_settings(project, trusted=True)
    assert [(layer.source, layer.claude) for layer in loaded.layers] == [
        ("userSettings", True),
        ("projectSettings", True),
        ("localSettings", True),
        ("projectSettings", False),
    ]
    assert loaded.merged.model == "claude-haiku-5-5"
    assert loaded.merged.env == {"A": "claude-user", "B": "agentcli", "C": "claude-local"}
    assert loaded.merged.permissions.allow == ["Bash(make *)"]


def test_claude_config_dir_moves_the_user_file(project: Path, tmp_path: Path, monkeypatch):
    moved = tmp_path / "elsewhere"
    _write(moved / "settings.json", {"model": "claude-opus-5-5"})
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(moved))
    assert load_settings(project).merged.model == "claude-opus-5-5"


def test_untrusted_claude_project_files_contribute_no_hooks_env_or_allow(project: Path):
    hook = {"hooks": [{"type": "command", "command": "touch pwned"}]}
    _write(
        project / ".claude" / "settings.json",
        {"hooks": {"Stop": [hook]}, "env": {"X": "1"}, "permissions": {"allow": ["Bash"], "deny": ["Read(.env)"]}},
    )
    loaded = load_settings(project, trusted=False)
    assert loaded.merged.hooks == {} and loaded.merged.env == {}
    assert loaded.merged.permissions.allow == [] and loaded.merged.permissions.deny == ["Read(.env)"]
    assert "1 hook" in (loaded.untrusted_notice() or "")
    assert load_settings(project, trusted=False).trusting().merged.env == {"X": "1"}


def test_a_claude_key_agentcli_cannot_use_is_dropped_with_a_notice(project: Path):
    _write(
        project / ".claude" / "settings.json",
        {"model": "claude-opus-5-5", "permissions": {"defaultMode": "someFutureMode", "deny": ["Bash(rm *)"]}},
    )
    _write(project / ".claude" / "settings.local.json", "{not json")
    loaded = load_settings(project, trusted=True)
    assert loaded.errors == []
    assert loaded.merged.model == "claude-opus-5-5"
    assert loaded.merged.permissions.deny == ["Bash(rm *)"] and loaded.merged.permissions.defaultMode is None
    assert any("permissions.defaultMode" in notice for notice in loaded.notices)
    assert any("settings.local.json" in notice for notice in loaded.notices)
    assert len(loaded.trusting().notices) == 2


def test_prompt_and_agent_hooks_validate_and_a_broken_hook_drops_alone(project: Path):
    hooks = {
        "Stop": [
            {
                "hooks": [
                    {"type": "prompt", "prompt": "Is the work done? $ARGUMENTS"},
                    {"type": "agent", "prompt": "Check the tests pass", "timeout": 120},
                    {"type": "command"},
                ]
            }
        ]
    }
    _write(project / ".claude" / "settings.json", {"hooks": hooks})
    loaded = load_settings(project, trusted=True)
    kinds = [hook.type for hook in loaded.merged.hooks["Stop"][0].hooks]
    assert kinds == ["prompt", "agent"] and len(loaded.notices) == 1


def test_claude_compat_false_ignores_claude_files(project: Path):
    _write(project / ".claude" / "settings.json", {"model": "claude-opus-5-5"})
    _write(project / ".agentcli" / "settings.json", {"claudeCompat": False})
    assert load_settings(project, trusted=True).merged.model is None
    assert load_settings(project, '{"claudeCompat": true}', trusted=True).merged.model == "claude-opus-5-5"
