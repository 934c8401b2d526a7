"""The Bash sandbox: whatever a command does, it cannot write outside the project, change protected files, or
reach the network; proven by running real commands under bubblewrap, not by asking the parser."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcli.tools.base import ToolEnv
from agentcli.tools.sandbox import Sandbox, SandboxConfig
from tests.conftest import collect
from tests.processes import running_with, sleep_seconds
from tests.tools.sandbox_fixtures import gone, serve_connections
from tests.waiting import DEADLINE_S, until, wait_until


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    """A loopback server that records what connects to it."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    received: list[bytes] = []
    thread = serve_connections(server, received)
    yield server.getsockname()[1], received
    server.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept(); close() alone would leave it waiting
    server.close()
    thread.join(timeout=DEADLINE_S)
    assert not thread.is_alive()


def arrived(received: list[bytes]) -> list[bytes]:
    """What the listener got, once it got something (its thread may still be reading when the command is done)."""
    return wait_until(lambda: list(received), "the listener to receive the connection")


@pytest.fixture
def sandboxed(project: Path, tmp_path: Path) -> ToolEnv:
    (project / ".git" / "hooks").mkdir(parents=True)
    (project / ".git" / "config").write_text("[core]\n")
    (project / ".agentcli").mkdir()
    return ToolEnv(project_dir=project, scratch_dir=tmp_path / "scratch", sandbox=Sandbox(SandboxConfig(), project))


def _connect(port: int) -> str:
    return (
        f"python3 -c \"import socket; s=socket.create_connection(('127.0.0.1', {port}), timeout=3); "
        f"s.sendall(b'leak')\""
    )


async def test_writes_outside_the_project_fail_and_inside_succeed(
    run_tool, sandboxed, project: Path, tmp_path: Path, hermetic_home: Path
):
    outside = tmp_path / "outside.txt"
    command = (
        f"echo x > {outside}; echo x > {hermetic_home}/.bashrc; touch /usr/local/evil; "
        "echo inside > made.txt; echo temp > /tmp/scratch.txt && cat /tmp/scratch.txt"
    )
    outcome = await run_tool("Bash", {"command": command}, tool_env=sandboxed)
    assert not outside.exists() and not (hermetic_home / ".bashrc").exists()
    assert not Path("/usr/local/evil").exists()
    assert "Read-only file system" in outcome.text
    assert (project / "made.txt").read_text() == "inside\n" and "temp" in outcome.text
    follow = await run_tool("Bash", {"command": "cat /tmp/scratch.txt"}, tool_env=sandboxed)
    assert follow.text == "temp", "the private /tmp lasts for the session"


async def test_protected_paths_stay_read_only_inside(run_tool, sandboxed, project: Path):
    command = (
        "echo 'rm -rf ~' > .git/hooks/pre-commit; git config --file .git/config core.fsmonitor evil; "
        "echo '{}' > .agentcli/settings.local.json; ln -s /tmp .agentcli/x"
    )
    outcome = await run_tool("Bash", {"command": command}, tool_env=sandboxed)
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    assert (project / ".git" / "config").read_text() == "[core]\n"
    assert list((project / ".agentcli").iterdir()) == []
    assert outcome.output.is_error


async def test_protected_folders_that_are_missing_cannot_be_created(run_tool, sandboxed, project: Path):
    outcome = await run_tool(
        "Bash", {"command": "mkdir -p .claude && echo '{\"hooks\": {}}' > .claude/settings.json"}, tool_env=sandboxed
    )
    gone(project / ".claude")
    assert "Read-only file system" in outcome.text
    assert "The sandbox protects .claude:" in outcome.text


async def test_submodule_configs_are_protected_too(run_tool, sandboxed, project: Path):
    command = "mkdir -p .git/modules/sub && printf '[core]\\n\\tfsmonitor = ./evil\\n' > .git/modules/sub/config"
    outcome = await run_tool("Bash", {"command": command}, tool_env=sandboxed)
    assert "The sandbox protects .git/modules:" in outcome.text
    gone(project / ".git" / "modules")
    (project / ".git" / "modules" / "sub").mkdir(parents=True)
    (project / ".git" / "modules" / "sub" / "config").write_text("[core]\n")
    outcome = await run_tool("Bash", {"command": command}, tool_env=sandboxed)
    assert (project / ".git" / "modules" / "sub" / "config").read_text() == "[core]\n"
    assert "Read-only file system" in outcome.text


async def test_symlinked_protected_folder_is_protected_at_its_target(run_tool, project: Path, tmp_path: Path):
    real = project / "real-settings"
    real.mkdir()
    (project / ".agentcli").symlink_to(real, target_is_directory=True)
    env = ToolEnv(project_dir=project, sandbox=Sandbox(SandboxConfig(), project))
    outcome = await run_tool("Bash", {"command": "echo '{}' > .agentcli/settings.json"}, tool_env=env)
    assert list(real.iterdir()) == [] and "Read-only file system" in outcome.text


async def test_no_network_unless_allowed(run_tool, sandboxed, listener, project: Path):
    port, received = listener
    outcome = await run_tool("Bash", {"command": _connect(port)}, tool_env=sandboxed)
    assert outcome.output.is_error and received == []
    assert "Connection refused" in outcome.text or "unreachable" in outcome.text
    allowed = ToolEnv(project_dir=project, sandbox=Sandbox(SandboxConfig(network=True), project))
    outcome = await run_tool("Bash", {"command": _connect(port)}, tool_env=allowed)
    assert outcome.ok, outcome.text
    assert arrived(received) == [b"leak"]


async def test_a_call_the_user_approved_in_person_may_use_the_network(run_tool, sandboxed, listener):
    port, received = listener
    sandboxed.sandbox.network_approved.add("toolu_approved")
    outcome = await run_tool("Bash", {"command": _connect(port)}, tool_env=sandboxed, tool_use_id="toolu_approved")
    assert outcome.ok and arrived(received) == [b"leak"]


async def test_no_other_processes_or_host_sockets_are_visible(run_tool, sandboxed):
    outcome = await run_tool("Bash", {"command": "ls /proc | grep -c '^[0-9]'; ls /run | wc -l"}, tool_env=sandboxed)
    processes, run_entries = (int(line) for line in outcome.text.splitlines())
    assert processes <= 5 and run_entries == 0


async def test_timeouts_still_end_the_whole_sandbox(run_tool, sandboxed, project: Path):
    outcome = await run_tool("Bash", {"command": "sleep 30 & sleep 30; echo never", "timeout": 300}, tool_env=sandboxed)
    assert outcome.structured["timedOut"] is True and "never" not in outcome.text


async def test_an_interrupt_ends_everything_in_the_sandbox(fake_api, make_engine, project: Path):
    marker = sleep_seconds(29)  # this test's own, whatever else is running
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_long",
                            "name": "Bash",
                            "input": {"command": f"touch started; sleep {marker} & sleep {marker}; wait"},
                        }
                    ]
                },
                {"content": [{"type": "text", "text": "stopped"}]},
            ]
        }
    )
    engine = make_engine(server, permission_mode="bypassPermissions")
    task = asyncio.create_task(collect(engine, "run it"))
    await until(
        lambda: (project / "started").exists() and len(running_with(marker)) >= 2, "the sandboxed commands", task=task
    )
    engine.interrupt()
    messages = await asyncio.wait_for(task, DEADLINE_S)
    assert messages[-1]["subtype"] == "error_during_execution"
    assert running_with(marker) == []


def _bash_turns(command: str, **extra: object) -> dict:
    return {
        "turns": [
            {
                "content": [
                    {"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": command, **extra}}
                ]
            },
            {"content": [{"type": "text", "text": "done"}]},
        ]
    }


def test_a_rule_naming_the_command_grants_the_network_auto_allow_does_not(run_cli, fake_api, listener, project: Path):
    port, received = listener
    (project / "connect.py").write_text(
        f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=3).sendall(b'named')\n"
    )
    named = fake_api(_bash_turns("python3 connect.py"))
    run_cli("-p", "go", "--allowedTools", "Bash(python3 connect.py)", server=named)
    assert arrived(received) == [b"named"]
    auto = json.dumps({"sandbox": {"mode": "auto-allow"}})
    proc = run_cli(
        "-p", "go", "--output-format", "json", "--settings", auto, server=fake_api(_bash_turns("python3 connect.py"))
    )
    assert json.loads(proc.stdout)["permission_denials"] == [] and received == [b"named"]


def test_a_command_the_parser_wrongly_allows_is_still_contained(
    run_cli, fake_api, project: Path, tmp_path: Path, listener
):
    """``printf -v`` evaluates an array subscript: the read-only judgement must catch it, and if it did not, the
    sandbox still would. Allowing every Bash command by rule stands in for a parser that is wrong."""
    port, received = listener
    outside = tmp_path / "pwned"
    command = (
        f"printf -v 'a[$(touch {outside} /usr/local/pwned; echo leak > /dev/tcp/127.0.0.1/{port})]' x; touch inside"
    )
    server = fake_api(_bash_turns(command))
    proc = run_cli("-p", "go", "--output-format", "json", "--allowedTools", "Bash", server=server)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["permission_denials"] == []
    assert (project / "inside").exists() and not outside.exists() and received == []
    assert not Path("/usr/local/pwned").exists()
    result = server.requests[1].body["messages"][2]["content"][0]["content"]
    assert "Read-only file system" in result and "Connection refused" in result


def test_sandbox_auto_allow_runs_contained_commands_without_asking(run_cli, fake_api, project: Path, tmp_path: Path):
    outside = tmp_path / "outside"
    settings = json.dumps({"sandbox": {"mode": "auto-allow"}})
    server = fake_api(_bash_turns(f"touch made; touch {outside}"))
    proc = run_cli("-p", "go", "--output-format", "json", "--settings", settings, server=server)
    assert json.loads(proc.stdout)["permission_denials"] == []
    assert (project / "made").exists() and not outside.exists()
    server = fake_api(_bash_turns(f"touch {outside}", dangerouslyDisableSandbox=True))
    proc = run_cli("-p", "go", "--output-format", "json", "--settings", settings, server=server)
    assert [d["tool_name"] for d in json.loads(proc.stdout)["permission_denials"]] == ["Bash"]
    assert not outside.exists()


def test_without_bwrap_agentcli_says_so_once_and_falls_back(run_cli, fake_api, project: Path, tmp_path: Path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "touch"):
        (bin_dir / tool).symlink_to(f"/usr/bin/{tool}")
    outside = tmp_path / "outside"
    server = fake_api(_bash_turns(f"touch {outside}"))
    proc = run_cli("-p", "go", "--allowedTools", "Bash", server=server, env={"PATH": str(bin_dir)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("bwrap was not found") == 1 and "apt-get install bubblewrap" in proc.stderr
    assert outside.exists(), "without a sandbox the permission rules alone decide, as they did before"


def test_a_bwrap_that_cannot_start_is_reported_in_the_result(run_cli, fake_api, project: Path, tmp_path: Path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    server = fake_api(_bash_turns("echo hello"))
    proc = run_cli("-p", "go", "--allowedTools", "Bash", server=server, env={"PATH": f"{bin_dir}:/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    result = server.requests[1].body["messages"][2]["content"][0]["content"]
    assert result.startswith("hello") and "ran without the sandbox" in result and "namespace" in result


async def test_background_commands_run_in_the_sandbox_too(fake_api, make_engine, project: Path):
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_bg",
                            "name": "Bash",
                            "input": {"command": "touch /usr/bg-escape; touch bg-inside", "run_in_background": True},
                        }
                    ]
                },
                {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_wait",
                            "name": "Bash",
                            "input": {"command": "while [ ! -e bg-inside ]; do sleep 0.01; done"},
                        }
                    ]
                },
                {"content": [{"type": "text", "text": "done"}]},
            ]
        }
    )
    engine = make_engine(server, permission_mode="bypassPermissions")
    await collect(engine, "go")
    await engine.aclose()
    assert (project / "bg-inside").exists() and not Path("/usr/bg-escape").exists()


def test_files_read_deny_rules_name_are_hidden_inside(run_cli, fake_api, project: Path):
    """The parser cannot see ``.env`` in ``${f}nv`` (and a whole-tool allow stands in for its mistakes); inside the
    sandbox the file is not there to read, move or overwrite."""
    (project / ".env").write_text("TOKEN=hidden-value-1\n")
    (project / "keys").mkdir()
    (project / "keys" / "id").write_text("hidden-value-2\n")
    command = 'f=.e k=ke; cat "${f}nv"; cat "${k}ys/id"; ls -A "${k}ys"; mv "${f}nv" moved; echo x >> "${f}nv"'
    server = fake_api(_bash_turns(command))
    denied = ["--disallowedTools", "Read(./.env),Read(./keys/**)"]
    proc = run_cli("-p", "go", "--output-format", "json", "--allowedTools", "Bash", *denied, server=server)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["permission_denials"] == []
    result = server.requests[1].body["messages"][2]["content"][0]["content"]
    assert "hidden-value" not in result and "Permission denied" in result
    assert (project / ".env").read_text() == "TOKEN=hidden-value-1\n" and not (project / "moved").exists()


async def test_writable_paths_are_writable_once_they_exist(run_tool, project: Path, tmp_path: Path):
    cache = tmp_path / "cache"
    env = ToolEnv(project_dir=project, sandbox=Sandbox(SandboxConfig(writable=(cache,)), project))
    first = await run_tool("Bash", {"command": f"touch {cache}/made"}, tool_env=env)
    assert first.output.is_error and not (cache / "made").exists()
    cache.mkdir()
    await run_tool("Bash", {"command": f"touch {cache}/made"}, tool_env=env)
    assert (cache / "made").exists()
    outside = tmp_path / "outside"
    await run_tool("Bash", {"command": f"touch {outside}"}, tool_env=env)
    assert not outside.exists()
