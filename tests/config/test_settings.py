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
