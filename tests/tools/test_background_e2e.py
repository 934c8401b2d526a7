"""Background shells end to end: started by the model, still running across turns, read, killed, and gone when
the session ends."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agentcli.tools.background import shells_report
from agentcli.tools.process import group_alive
from agentcli.ui.extensions import extensions_summary
from tests.conftest import collect
from tests.waiting import DEADLINE_S


def use(tool_id: str, name: str, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"]


WAIT_FOR_PGID = "while [ ! -s bg.pgid ]; do sleep 0.01; done"
UNCONFINED = '{"sandbox": {"enabled": false}}'
"""These tests read the process group from $$, which is the host's id only outside the sandbox."""


async def test_background_command_runs_across_turns_and_is_stopped_at_the_end(fake_api, make_engine, project: Path):
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        use(
                            "toolu_start",
                            "Bash",
                            command="echo started; echo $$ > bg.pgid; exec sleep 60",
                            run_in_background=True,
                            description="A long-running server",
                        )
                    ]
                },
                {
                    "content": [
                        use("toolu_wait", "Bash", command=WAIT_FOR_PGID),
                        use("toolu_read", "BashOutput", bash_id="bash_1"),
                    ]
                },
                {"content": [use("toolu_again", "BashOutput", bash_id="bash_1")]},
                {"content": [{"type": "text", "text": "The server is up."}]},
            ]
        }
    )
    engine = make_engine(server, permission_mode="bypassPermissions", settings_flag=UNCONFINED)
    messages = await collect(engine, "start the server")

    [started] = results(server.requests[1].body)
    assert started["content"] == "Command running in background with ID: bash_1"
    _, first_read = results(server.requests[2].body)
    assert "<status>running</status>" in first_read["content"] and "started" in first_read["content"]
    [second_read] = results(server.requests[3].body)
    assert second_read["content"] == "<status>running</status>\n<stdout>(no new output)</stdout>"
    assert messages[-1]["subtype"] == "success"

    pgid = int((project / "bg.pgid").read_text())
    assert group_alive(pgid)
    assert extensions_summary(engine) == "1 shell running"
    title, detail = shells_report(engine.config.extensions["shells"])
    assert title == "Background shells (1 running)" and "bash_1 · running · A long-running server" in detail
    await engine.aclose()
    assert not group_alive(pgid)
    assert engine.config.extensions["shells"].shells["bash_1"].status == "killed"


async def test_kill_shell_and_a_finished_command(fake_api, make_engine, project: Path):
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        use("toolu_a", "Bash", command="echo $$ > bg.pgid; exec sleep 60", run_in_background=True),
                        use(
                            "toolu_b",
                            "Bash",
                            command="echo done-out; echo done-err >&2; exit 3",
                            run_in_background=True,
                        ),
                    ]
                },
                {
                    "content": [
                        use("toolu_wait", "Bash", command=WAIT_FOR_PGID),
                        use("toolu_kill", "KillShell", shell_id="bash_1"),
                    ]
                },
                {"content": [use("toolu_unknown", "BashOutput", bash_id="bash_9")]},
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    engine = make_engine(server, permission_mode="bypassPermissions", settings_flag=UNCONFINED)
    await collect(engine, "go")
    _, killed = results(server.requests[2].body)
    assert killed["content"].startswith("Successfully killed shell: bash_1")
    assert not group_alive(int((project / "bg.pgid").read_text()))
    [unknown] = results(server.requests[3].body)
    assert unknown["is_error"] and "No shell found with ID: bash_9" in unknown["content"]
    finished = engine.config.extensions["shells"].shells["bash_2"]
    await asyncio.wait_for(finished.exited.wait(), DEADLINE_S)
    assert finished.status == "failed" and finished.exit_code == 3
    assert "done-out" in finished.take_new("stdout") and "done-err" in finished.take_new("stderr")
