"""SIGKILL at the worst moments of a compacting session, each followed by ``--continue``, through the real CLI:
while an answer streams, while a tool runs, while the compaction's summary request is out, and right after the
compact boundary is written. Every request is valid (the fake API validates each strictly), the user's prompts
arrive intact, once each, and a compacted history holds one summary."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from agentcli.config.paths import sessions_dir
from agentcli.context.compact_messages import PROMPT_TAG, SUMMARY_HEADER, is_summary_request
from tests.context.sessions import answer_turn, own, read_turn, setup_project, summary_turn
from tests.processes import running_with, sleep_seconds
from tests.waiting import DEADLINE_S, wait_until

PROMPTS = [
    "K1: read the first two data files.",
    "K2: now run the slow step.",
    "K3: read the other files, «all of them» ❄.",
    "K4: what do the files have in common?",
    "K5: thank you; one line to end with.",
]
HELD = 3
"""Events a held reply streams before it stops until the test is done (the process is killed meanwhile)."""


def _held(turn: dict[str, Any]) -> dict[str, Any]:
    return {**turn, "hold_after_events": HELD}


class _Run:
    """One ``agentcli -p`` process in its own process group (so a kill takes its tools along)."""

    def __init__(self, project: Path, env: dict[str, str], prompt: str, *, resume: bool) -> None:
        args = ["-p", "--allowedTools", "Bash", "--output-format", "json", *(["--continue"] if resume else [])]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agentcli", *args, prompt],
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )

    def kill(self) -> None:
        assert self.proc.poll() is None, "the run ended before the kill point"
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.communicate(timeout=DEADLINE_S)

    def finish(self) -> dict[str, Any]:
        out, err = self.proc.communicate(timeout=DEADLINE_S)
        assert self.proc.returncode == 0, (out[-2000:], err[-2000:])
        return json.loads(out)


def _transcript(project: Path) -> str:
    paths = list(sessions_dir(project).glob("*.jsonl"))
    return paths[0].read_text(encoding="utf-8") if paths else ""


def _summary_requests(server) -> int:
    return sum(is_summary_request(r.body) for r in list(server.requests))


def _prompts_in(messages: list[dict[str, Any]]) -> list[str]:
    """The user's prompts a history holds: carried by a continuation, or as they were sent."""
    found: list[str] = []
    open_tag, close_tag = f"<{PROMPT_TAG}>\n", f"\n</{PROMPT_TAG}>"
    for message in messages:
        if message["role"] != "user":
            continue
        content = message["content"]
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            text = str(block.get("text", "")) if block.get("type") == "text" else ""
            if text.startswith(open_tag) and text.endswith(close_tag):
                found.append(text[len(open_tag) : -len(close_tag)])
            elif text in PROMPTS:
                found.append(text)
    return found


def test_kill_nine_at_every_stage_of_a_compacting_session_then_continue(fake_api, run_cli_env, project: Path):
    setup_project(project)
    servers = []

    def start(prompt: str, turns: list[dict[str, Any]]) -> tuple[Any, _Run]:
        server = fake_api({"turns": turns})
        servers.append(server)
        return server, _Run(project, run_cli_env(server), prompt, resume=bool(servers[:-1]))

    # 1. While the answer streams.
    server, run = start(PROMPTS[0], [read_turn(project, 1), read_turn(project, 2), _held(answer_turn("Both read."))])
    wait_until(lambda: len(server.requests) == 3, "the third request")
    run.kill()

    # 2. While a tool runs.
    marker = sleep_seconds(300)
    slow = own(
        {"content": [{"type": "tool_use", "id": "toolu_slow", "name": "Bash", "input": {"command": f"sleep {marker}"}}]}
    )
    server, run = start(PROMPTS[1], [slow])
    wait_until(lambda: running_with(f"sleep {marker}"), "the slow command")
    run.kill()
    for pid in running_with(f"sleep {marker}"):  # a command may run in a session of its own
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)
    wait_until(lambda: not running_with(f"sleep {marker}"), "the slow command to end")

    # 3. While the compaction's summary request is out (the reads fill the window).
    reads = [read_turn(project, n, call="_k3") for n in range(3, 9)]
    server, run = start(PROMPTS[2], [*reads, _held(summary_turn("SUMMARY-K3: never arrives."))])
    wait_until(lambda: _summary_requests(server) == 1, "the summary request")
    run.kill()
    assert '"compact_boundary"' not in _transcript(project)

    # 4. Right after the boundary is written: the next request is out.
    summary = summary_turn("SUMMARY-K4: the user reads the data files and asks what they share.")
    server, run = start(PROMPTS[3], [summary, _held(answer_turn("They share a format."))])
    wait_until(lambda: '"compact_boundary"' in _transcript(project), "the compact boundary")
    wait_until(lambda: len(server.requests) == 2, "the request after the compaction")
    run.kill()

    # 5. The session goes on.
    server, run = start(PROMPTS[4], [answer_turn("Fifty lines of lorem ipsum each. PINEAPPLE")])
    assert run.finish()["result"] == "Fifty lines of lorem ipsum each. PINEAPPLE"

    for each in servers:
        assert all(not r.violations and r.status == 200 for r in each.requests), [r.violations for r in each.requests]
    compacted = [r.body["messages"] for s in servers[3:] for r in s.requests if not is_summary_request(r.body)]
    assert len(compacted) == 2
    for messages in compacted:
        sent = json.dumps(messages, ensure_ascii=False)
        assert sent.count(SUMMARY_HEADER) == 1 and sent.count("SUMMARY-K4") == 1 and "SUMMARY-K3" not in sent
    final = compacted[-1]
    assert _prompts_in(final) == PROMPTS, _prompts_in(final)
    [boundary] = [line for line in _transcript(project).splitlines() if '"compact_boundary"' in line]
    assert json.loads(boundary)["compact_metadata"]["trigger"] == "auto"
