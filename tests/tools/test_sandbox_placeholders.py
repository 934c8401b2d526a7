"""Placeholders for missing protected paths under concurrency: they stand while any sandboxed command of the
session runs (foreground, background, hook), nothing a command made there survives, and cleanup never removes
what the user put there meanwhile."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.tools.background import BackgroundShells
from agentcli.tools.base import ToolEnv
from agentcli.tools.sandbox import Sandbox, SandboxConfig, sandboxed_hook
from tests.conftest import collect
from tests.tools.sandbox_fixtures import gone, unix_server  # noqa: F401 (a fixture)
from tests.waiting import until, wait_until


async def _background(shells: BackgroundShells, sandbox: Sandbox, project: Path, command: str):
    return await shells.launch(command, cwd=project, env={"PATH": "/usr/bin:/bin"}, description=None, sandbox=sandbox)


async def test_a_background_command_cannot_plant_claude_settings(project: Path):
    sandbox = Sandbox(SandboxConfig(), project)
    shells = BackgroundShells()
    hook = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch pwned"}]}]}}'
    shell = await _background(
        shells, sandbox, project, f"mkdir -p .claude; echo '{hook}' > .claude/settings.json; echo '{{}}' > .mcp.json"
    )
    await until(lambda: shell.exited.is_set(), "the background command to end")
    await shells.aclose()
    assert "Read-only file system" in shell.take_new("stderr")
    gone(project / ".claude", project / ".mcp.json")


async def test_placeholders_stand_while_any_sandboxed_command_runs(run_tool, project: Path):
    """A foreground command ending while a background one still runs must leave the placeholders: removing one
    would let the background command create the protected name."""
    sandbox = Sandbox(SandboxConfig(), project)
    shells = BackgroundShells()
    shell = await _background(
        shells,
        sandbox,
        project,
        "touch started; while [ ! -e go ]; do sleep 0.01; done; mkdir .claude/x; echo x > .agentcli/s; touch done",
    )
    await until(lambda: (project / "started").exists(), "the background command to start")
    outcome = await run_tool("Bash", {"command": "true"}, tool_env=ToolEnv(project_dir=project, sandbox=sandbox))
    assert outcome.ok
    assert (project / ".claude").is_dir(), "the placeholder stands while the background command runs"
    (project / "go").touch()
    await until(lambda: shell.exited.is_set(), "the background command to end")
    await shells.aclose()
    assert "Read-only file system" in shell.take_new("stderr")
    gone(project / ".claude", project / ".agentcli")


async def test_cleanup_keeps_what_the_user_put_in_a_placeholder(project: Path):
    sandbox = Sandbox(SandboxConfig(), project)
    shells = BackgroundShells()
    shell = await _background(shells, sandbox, project, "touch started; while [ ! -e go ]; do sleep 0.01; done")
    await until(lambda: (project / "started").exists(), "the background command to start")
    (project / ".claude" / "settings.local.json").write_text('{"model": "mine"}\n')  # the user, meanwhile
    (project / "go").touch()
    await until(lambda: shell.exited.is_set(), "the background command to end")
    await shells.aclose()
    assert (project / ".claude" / "settings.local.json").read_text() == '{"model": "mine"}\n'


async def test_a_placeholder_replaced_by_the_user_is_left_alone(project: Path):
    sandbox = Sandbox(SandboxConfig(), project)
    shells = BackgroundShells()
    shell = await _background(shells, sandbox, project, "touch started; while [ ! -e go ]; do sleep 0.01; done")
    await until(lambda: (project / "started").exists(), "the background command to start")
    (project / ".mcp.json").rmdir()  # the user's editor replaces the placeholder with a real file
    (project / ".mcp.json").write_text('{"mcpServers": {}}\n')
    (project / "go").touch()
    await until(lambda: shell.exited.is_set(), "the background command to end")
    await shells.aclose()
    assert (project / ".mcp.json").read_text() == '{"mcpServers": {}}\n'


def test_a_hook_gets_placeholders_until_it_has_ended(project: Path):
    """A hook is started by its runner from a command line: the session finds it by its token."""
    import subprocess

    sandbox = Sandbox(SandboxConfig(), project)
    argv = sandboxed_hook(sandbox, "touch started; while [ ! -e go ]; do sleep 0.01; done; mkdir .claude/x", project)
    process = subprocess.Popen(argv, cwd=project, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: (project / "started").exists(), "the hook to start")
        sandbox.tidy()
        assert (project / ".claude").is_dir(), "still running: the placeholder stands"
        (project / "go").touch()
        _, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert "Read-only file system" in stderr
    sandbox.tidy()
    assert not (project / ".claude").exists()


def test_hooks_inside_the_sandbox_cannot_reach_unix_sockets(
    run_cli,
    fake_api,
    project: Path,
    unix_server,  # noqa: F811
):
    path, accepted = unix_server
    hook = {
        "type": "command",
        "command": f"python3 -c \"import socket; socket.socket(socket.AF_UNIX).connect('{path}')\" 2> hook-err.txt",
    }
    settings = {"sandbox": {"hooks": True}, "hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}}
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "done"}]}]})
    proc = run_cli("-p", "go", "--settings", json.dumps(settings), server=server)
    assert proc.returncode == 0, proc.stderr
    assert "Operation not permitted" in (project / "hook-err.txt").read_text()
    assert accepted == []


async def test_an_interrupted_session_leaves_no_placeholder(fake_api, make_engine, project: Path):
    turns = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_bg",
                    "name": "Bash",
                    "input": {"command": "sleep 600", "run_in_background": True},
                }
            ]
        },
        {"content": [{"type": "text", "text": "started"}]},
    ]
    engine = make_engine(fake_api({"turns": turns}), permission_mode="bypassPermissions")
    await collect(engine, "go")
    assert (project / ".claude").is_dir(), "the background command still runs"
    await engine.aclose()
    gone(project / ".claude", project / ".mcp.json")
