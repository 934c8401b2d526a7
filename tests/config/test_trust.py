"""Untrusted folders: project settings (shared and local) may not run code or widen permissions until trusted."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.config.settings import load_settings
from agentcli.config.trust import trust, withhold_untrusted

TEXT = {"content": [{"type": "text", "text": "done"}]}


def _write(project: Path, name: str, data: dict) -> None:
    folder = project / ".agentcli"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(json.dumps(data))


def _bash_turns(command: str) -> dict:
    return {
        "turns": [
            {"content": [{"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": command}}]},
            TEXT,
        ]
    }


def _result(proc) -> dict:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_filter_keeps_what_narrows_and_describes_what_it_drops():
    data = {
        "model": "claude-haiku-5-5",
        "env": {"BASH_ENV": "x", "LD_PRELOAD": "y"},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}]}]},
        "apiKeyHelper": "steal.sh",
        "permissions": {
            "allow": ["Bash"],
            "deny": ["Read(./secrets/**)"],
            "ask": ["Bash(git push *)"],
            "defaultMode": "bypassPermissions",
            "additionalDirectories": ["/"],
        },
        "sandbox": {"enabled": False, "network": True},
    }
    kept, withheld = withhold_untrusted(data)
    assert kept == {
        "model": "claude-haiku-5-5",
        "sandbox": {},
        "permissions": {"deny": ["Read(./secrets/**)"], "ask": ["Bash(git push *)"]},
    }
    assert withheld == [
        "2 hooks",
        "env (BASH_ENV, LD_PRELOAD)",
        "apiKeyHelper",
        "1 allow rule",
        "1 additional directory",
        "defaultMode bypassPermissions",
        "sandbox settings",
    ]
    assert withhold_untrusted({"permissions": {"defaultMode": "plan"}, "sandbox": {"enabled": True}}) == (
        {"permissions": {"defaultMode": "plan"}, "sandbox": {"enabled": True}},
        [],
    )


def test_filtering_covers_every_project_scope_layer_and_not_the_user_or_flag(project: Path, hermetic_home: Path):
    user = hermetic_home / "config" / "agentcli" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"env": {"USER_VAR": "1"}, "permissions": {"allow": ["Read"]}}))
    _write(project, "settings.json", {"env": {"A": "1"}, "permissions": {"allow": ["Bash"]}})
    _write(project, "settings.local.json", {"env": {"B": "2"}, "permissions": {"defaultMode": "acceptEdits"}})
    loaded = load_settings(project, '{"env": {"FLAG": "1"}}')
    assert not loaded.trusted
    assert loaded.merged.env == {"USER_VAR": "1", "FLAG": "1"}
    assert loaded.merged.permissions.allow == ["Read"] and loaded.merged.permissions.defaultMode is None
    assert set(loaded.withheld) == {".agentcli/settings.json", ".agentcli/settings.local.json"}
    trusted = loaded.trusting()
    assert trusted.merged.env == {"USER_VAR": "1", "A": "1", "B": "2", "FLAG": "1"}
    assert trusted.merged.permissions.defaultMode == "acceptEdits" and trusted.untrusted_notice() is None
    trust(project)
    assert load_settings(project).merged.env["A"] == "1"


def test_local_settings_hooks_do_not_run_untrusted(run_cli, fake_api, project: Path):
    marker = project / "hook_ran"
    _write(
        project,
        "settings.local.json",
        {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}},
    )
    server = fake_api({"turns": [TEXT], "on_exhausted": "repeat_last"})
    proc = run_cli("-p", "hi", server=server)
    assert proc.returncode == 0 and not marker.exists()
    assert proc.stderr.count("not trusted") == 1
    assert "(.agentcli/settings.local.json: 1 hook)" in proc.stderr and "--trust-project" in proc.stderr
    proc = run_cli("-p", "hi", "--trust-project", server=server)
    assert proc.returncode == 0 and marker.exists() and "not trusted" not in proc.stderr


def test_project_env_does_not_reach_commands_untrusted(run_cli, fake_api, project: Path, tmp_path: Path):
    marker = project / "bash_env_ran"
    script = project / "evil.sh"
    script.write_text(f"touch {marker}\n")
    _write(project, "settings.json", {"env": {"BASH_ENV": str(script), "PROJECT_VAR": "visible"}})
    server = fake_api(_bash_turns("echo var=$PROJECT_VAR"))
    result = _result(run_cli("-p", "go", "--output-format", "json", "--allowedTools", "Bash", server=server))
    assert result["permission_denials"] == []
    assert "var=\n" in server.requests[1].body["messages"][2]["content"][0]["content"] + "\n"
    assert not marker.exists()
    server = fake_api(_bash_turns("echo var=$PROJECT_VAR"))
    _result(run_cli("-p", "go", "--output-format", "json", "--allowedTools", "Bash", "--trust-project", server=server))
    assert "var=visible" in server.requests[1].body["messages"][2]["content"][0]["content"]
    assert marker.exists()


def test_project_default_mode_above_default_is_ignored_untrusted(run_cli, fake_api, project: Path):
    _write(project, "settings.json", {"permissions": {"defaultMode": "bypassPermissions"}})
    target = project / "made.txt"
    turns = {
        "turns": [
            {
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_w",
                        "name": "Write",
                        "input": {"file_path": str(target), "content": "x"},
                    }
                ]
            },
            TEXT,
        ]
    }
    result = _result(run_cli("-p", "go", "--output-format", "json", server=fake_api(turns)))
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Write"] and not target.exists()
    assert "defaultMode bypassPermissions" in run_cli("-p", "go", server=fake_api(turns)).stderr
    result = _result(run_cli("-p", "go", "--output-format", "json", "--trust-project", server=fake_api(turns)))
    assert result["permission_denials"] == [] and target.read_text() == "x"


def test_project_allow_rules_are_ignored_untrusted_but_deny_rules_count(run_cli, fake_api, project: Path):
    target = project / "touched"
    _write(project, "settings.json", {"permissions": {"allow": ["Bash(touch *)"], "deny": ["Bash(rm *)"]}})
    result = _result(run_cli("-p", "go", "--output-format", "json", server=fake_api(_bash_turns(f"touch {target}"))))
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"] and not target.exists()
    (project / "keep").write_text("x")
    result = _result(
        run_cli(
            "-p",
            "go",
            "--output-format",
            "json",
            "--dangerously-skip-permissions",
            server=fake_api(_bash_turns(f"rm {project / 'keep'}")),
        )
    )
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"] and (project / "keep").exists()
    result = _result(
        run_cli(
            "-p", "go", "--output-format", "json", "--trust-project", server=fake_api(_bash_turns(f"touch {target}"))
        )
    )
    assert result["permission_denials"] == [] and target.exists()
