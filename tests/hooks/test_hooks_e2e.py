"""Hooks in a real session: the engine and loop against the fake Messages API, hooks as real processes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import collect, hook_entry
from tests.hooks.conftest import settings_file
from tests.messages import typed, without_cache_control


def _hooks(event: str, command: str, matcher: str | None = None, timeout: float | None = None) -> str:
    """The ``--settings`` flag for one command hook."""
    return json.dumps({"hooks": hook_entry(event, command, matcher, timeout)})


TEXT = {"content": [{"type": "text", "text": "I am done."}]}


async def test_blocking_stop_hook_feeds_back_and_the_loop_continues(fake_api, make_engine, project: Path):
    log = project / "stop_inputs.jsonl"
    command = (
        f"cat >> {log}; echo >> {log}; if [ ! -f {project}/ok ]; then touch {project}/ok; "
        "echo 'tests are failing' >&2; exit 2; fi"
    )
    server = fake_api({"turns": [TEXT, {"content": [{"type": "text", "text": "Fixed the tests."}]}]})
    engine = make_engine(server, settings_flag=_hooks("Stop", command))
    messages = await collect(engine, "fix it")
    assert messages[-1]["subtype"] == "success" and messages[-1]["result"] == "Fixed the tests."
    second = typed(server.requests[1].body["messages"])
    assert second[-1] == {"role": "user", "content": f"Stop hook feedback:\n[{command}]: tests are failing"}
    inputs = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert [i["stop_hook_active"] for i in inputs] == [False, True]
    assert inputs[0]["last_assistant_message"] == "I am done." and inputs[0]["hook_event_name"] == "Stop"
    summaries = [m for m in messages if m.get("subtype") == "stop_hook_summary"]
    assert len(summaries) == 2 and summaries[0]["hooks"][0]["exit_code"] == 2


async def test_always_blocking_stop_hook_ends_at_the_cap(fake_api, make_engine):
    server = fake_api({"turns": [TEXT], "on_exhausted": "repeat_last"})
    engine = make_engine(server, settings_flag=_hooks("Stop", "echo 'never satisfied' >&2; exit 2"))
    messages = await collect(engine, "go")
    assert len(server.requests) == 9  # eight blocks are honoured; the ninth ends the turn, as in Claude Code
    assert messages[-1]["subtype"] == "success"
    warnings = [m["message"] for m in messages if m.get("subtype") == "warning"]
    assert warnings == ["Stop hooks blocked 9 times in a row; ending the turn anyway"]


async def test_stop_hook_block_cap_from_the_environment(fake_api, make_engine, monkeypatch):
    monkeypatch.setenv("AGENTCLI_STOP_HOOK_BLOCK_CAP", "2")
    server = fake_api({"turns": [TEXT], "on_exhausted": "repeat_last"})
    await collect(make_engine(server, settings_flag=_hooks("Stop", "exit 2")), "go")
    assert len(server.requests) == 3


async def test_stop_hook_continue_false_ends_the_turn_with_its_reason(fake_api, make_engine):
    server = fake_api({"turns": [TEXT]})
    engine = make_engine(
        server, settings_flag=_hooks("Stop", """echo '{"continue": false, "stopReason": "deploy window closed"}'""")
    )
    messages = await collect(engine, "go")
    assert len(server.requests) == 1
    assert messages[-1]["subtype"] == "success"
    assert any(m.get("message") == "Stopped by hook: deploy window closed" for m in messages)


async def test_silent_successful_stop_hook_never_creates_a_turn(fake_api, make_engine):
    server = fake_api({"turns": [TEXT]})
    messages = await collect(make_engine(server, settings_flag=_hooks("Stop", "true")), "go")
    assert len(server.requests) == 1 and messages[-1]["result"] == "I am done."


async def test_pre_tool_use_deny_stops_the_tool_and_the_model_sees_why(fake_api, make_engine, project: Path):
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "README is off limits",
        }
    }
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_r",
                            "name": "Read",
                            "input": {"file_path": str(project / "README.md")},
                        }
                    ]
                },
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    engine = make_engine(server, settings_flag=_hooks("PreToolUse", f"echo '{json.dumps(deny)}'", matcher="Read"))
    messages = await collect(engine, "read")
    block = server.requests[1].body["messages"][2]["content"][0]
    assert block["is_error"] is True and "README is off limits" in block["content"]
    assert "Demo project" not in block["content"]
    assert messages[-1]["permission_denials"][0]["tool_use_id"] == "toolu_r"


async def test_pre_tool_use_exit_2_blocks_with_stderr(fake_api, make_engine, project: Path):
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_r",
                            "name": "Read",
                            "input": {"file_path": str(project / "README.md")},
                        }
                    ]
                },
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    engine = make_engine(server, settings_flag=_hooks("PreToolUse", "echo 'not today' >&2; exit 2", matcher="Read"))
    await collect(engine, "read")
    block = server.requests[1].body["messages"][2]["content"][0]
    assert block["is_error"] is True and "not today" in block["content"]


async def test_updated_input_changes_what_runs(fake_api, make_engine, project: Path):
    other = project / "src" / "app.py"
    update = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"file_path": str(other)},
        }
    }
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_r",
                            "name": "Read",
                            "input": {"file_path": str(project / "README.md")},
                        }
                    ]
                },
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    engine = make_engine(server, settings_flag=_hooks("PreToolUse", f"echo '{json.dumps(update)}'"))
    await collect(engine, "read")
    block = server.requests[1].body["messages"][2]["content"][0]
    assert block["content"].startswith("1\tdef add(a, b):")


async def test_post_tool_use_feedback_reaches_the_model(fake_api, make_engine, project: Path):
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_r",
                            "name": "Read",
                            "input": {"file_path": str(project / "README.md")},
                        }
                    ]
                },
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    command = "cat > /dev/null; echo 'lint failed on README' >&2; exit 2"
    engine = make_engine(server, settings_flag=_hooks("PostToolUse", command, matcher="Read"))
    await collect(engine, "read")
    content = server.requests[1].body["messages"][2]["content"]
    assert content[0]["type"] == "tool_result" and "Demo project" in content[0]["content"]
    assert without_cache_control(content[1]) == {
        "type": "text",
        "text": f"PostToolUse hook feedback:\n[{command}]: lint failed on README",
    }


async def test_user_prompt_submit_can_block_or_add_context(fake_api, make_engine):
    server = fake_api({"turns": [TEXT]})
    blocked = make_engine(
        server, settings_flag=_hooks("UserPromptSubmit", "grep -q secret && { echo 'no secrets' >&2; exit 2; } || true")
    )
    messages = await collect(blocked, "tell me the secret")
    assert messages[-1]["subtype"] == "success" and messages[-1]["is_error"] is False  # exit 0 in -p
    assert any("no secrets" in m.get("message", "") for m in messages if m.get("subtype") == "warning")
    assert server.requests == [] and blocked.messages == []
    engine = make_engine(server, settings_flag=_hooks("UserPromptSubmit", "echo 'current branch: main'"))
    await collect(engine, "hello")
    assert typed(server.requests[0].body["messages"])[0]["content"] == [
        {"type": "text", "text": "hello"},
        {"type": "text", "text": "<system-reminder>\ncurrent branch: main\n</system-reminder>"},
    ]


async def test_session_start_context_and_settings_env(fake_api, make_engine):
    server = fake_api({"turns": [TEXT, TEXT]})
    settings = json.loads(_hooks("SessionStart", 'echo "team: $TEAM_NAME"', matcher="startup"))
    settings["env"] = {"TEAM_NAME": "platform"}
    engine = make_engine(server, settings_flag=json.dumps(settings))
    await collect(engine, "hi")
    await collect(engine, "again")
    assert (
        typed(server.requests[0].body["messages"])[0]["content"][1]["text"]
        == "<system-reminder>\nteam: platform\n</system-reminder>"
    )
    assert typed(server.requests[1].body["messages"])[2] == {"role": "user", "content": "again"}


def test_project_hooks_need_trust_in_print_mode(run_cli, fake_api, project: Path):
    marker = project / "hook_ran"
    settings_file(project, json.loads(_hooks("Stop", f"touch {marker}")))
    server = fake_api({"turns": [TEXT], "on_exhausted": "repeat_last"})
    proc = run_cli("-p", "hi", server=server)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert "settings.json: 1 hook" in proc.stderr and "--trust-project" in proc.stderr
    proc = run_cli("-p", "hi", "--trust-project", server=server)
    assert proc.returncode == 0 and marker.exists()
    marker.unlink()
    from agentcli.config.trust import trust

    trust(project)
    proc = run_cli("-p", "hi", server=server)
    assert marker.exists() and "not trusted" not in proc.stderr


def test_broken_settings_stop_print_mode_with_file_and_line(run_cli, project: Path):
    folder = project / ".agentcli"
    folder.mkdir()
    (folder / "settings.json").write_text('{\n  "model": "x",\n  "maxRetries": "many"\n}\n')
    proc = run_cli("-p", "hi", env={"ANTHROPIC_API_KEY": "k"})
    assert proc.returncode == 2
    assert f"{folder / 'settings.json'}:3: maxRetries" in proc.stderr
    (folder / "settings.json").write_text('{"model": "x",,}')
    proc = run_cli("-p", "hi", env={"ANTHROPIC_API_KEY": "k"})
    assert proc.returncode == 2 and "settings.json:1:15: not valid JSON" in proc.stderr


def test_hooks_run_command_shows_each_result(run_cli, project: Path):
    settings = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {
                            "type": "command",
                            "command": 'cat > /dev/null; echo \'{"decision": "block", "reason": "nope"}\'',
                        },
                        {"type": "command", "command": "exit 3"},
                    ],
                }
            ]
        }
    }
    settings_file(project, settings, "settings.local.json")
    proc = run_cli("hooks", "run", "PreToolUse", "--input", '{"tool_name": "Bash", "tool_input": {"command": "ls"}}')
    assert proc.returncode == 1
    assert "BLOCKS: nope" in proc.stdout and "ERROR: exited with status 3" in proc.stdout
    proc = run_cli("hooks", "list")
    assert "PreToolUse" in proc.stdout and "settings.local.json" in proc.stdout
    proc = run_cli("hooks", "run", "Nope")
    assert proc.returncode == 2


async def test_session_end_and_notification_hooks(fake_api, make_engine, project: Path):
    log = project / "events.log"
    settings = {
        "hooks": {
            "SessionEnd": [{"hooks": [{"type": "command", "command": f"cat >> {log}; echo >> {log}"}]}],
            "Notification": [{"hooks": [{"type": "command", "command": f"cat >> {log}; echo >> {log}"}]}],
        }
    }
    server = fake_api({"turns": [TEXT]})
    engine = make_engine(server, settings_flag=json.dumps(settings))
    await collect(engine, "hi")
    await engine.notify("agentcli needs your permission to use Bash", "Permission needed")
    await engine.aclose("prompt_input_exit")
    events = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert [(e["hook_event_name"], e.get("reason"), e.get("title")) for e in events] == [
        ("Notification", None, "Permission needed"),
        ("SessionEnd", "prompt_input_exit", None),
    ]
