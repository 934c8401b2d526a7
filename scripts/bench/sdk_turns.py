"""A 20-turn conversation three ways, per-turn time against the fake server (which answers at once):

- ``agentcli -p`` once per turn, each run resuming the session of the one before (``--resume ID``): the baseline;
- one ``agentcli`` process driven by the official Agent SDK's ``ClaudeSDKClient`` (``query`` + ``receive_response``);
- one ``agentcli --input-format stream-json`` process fed raw NDJSON lines (the SDK client's own cost left out).

The first turn of a long-lived process includes its start-up and is reported apart; the medians are over the
turns after it. All three run in the same command, on the same machine, one after another.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import child_env, median, table

from agentcli.testing import FakeAnthropicServer

AGENTCLI = str(Path(sys.executable).with_name("agentcli"))
STREAM = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]


def per_process(turns: int, env: dict[str, str], cwd: str) -> list[float]:
    times: list[float] = []
    session: str | None = None
    for n in range(turns):
        resume = ["--resume", session] if session else []
        start = time.monotonic()
        proc = subprocess.run(
            [AGENTCLI, "-p", f"turn {n}", "--output-format", "json", *resume],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
        )
        times.append(time.monotonic() - start)
        session = json.loads(proc.stdout)["session_id"]
    return times


def raw_stream(turns: int, env: dict[str, str], cwd: str) -> list[float]:
    proc = subprocess.Popen(
        [AGENTCLI, *STREAM], env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    assert proc.stdin is not None and proc.stdout is not None
    times: list[float] = []
    start = time.monotonic()
    for n in range(turns):
        proc.stdin.write(json.dumps({"type": "user", "message": {"role": "user", "content": f"turn {n}"}}) + "\n")
        proc.stdin.flush()
        for line in proc.stdout:
            if json.loads(line)["type"] == "result":
                break
        now = time.monotonic()
        times.append(now - start)
        start = now
    proc.stdin.close()
    proc.wait()
    return times


def sdk_client(turns: int, env: dict[str, str], cwd: str) -> list[float]:
    from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient

    async def run() -> list[float]:
        options = ClaudeAgentOptions(cli_path=AGENTCLI, cwd=cwd, env=env)
        times: list[float] = []
        start = time.monotonic()
        async with ClaudeSDKClient(options=options) as client:
            for n in range(turns):
                await client.query(f"turn {n}")
                async for _message in client.receive_response():
                    pass
                now = time.monotonic()
                times.append(now - start)
                start = now
        return times

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args()
    server = FakeAnthropicServer(
        {"turns": [{"content": [{"type": "text", "text": "ok"}]}], "on_exhausted": "repeat_last"}
    ).start()
    env = child_env(ANTHROPIC_API_KEY="bench-key", ANTHROPIC_BASE_URL=server.base_url)
    with tempfile.TemporaryDirectory() as cwd:
        baseline = per_process(args.turns, env, cwd)
        driven = sdk_client(args.turns, env, cwd)
        raw = raw_stream(args.turns, env, cwd)
    server.stop()
    base = median(baseline[1:])
    print(f"turns: {args.turns}; medians over turns 2..{args.turns}")
    print(
        table(
            [
                ("agentcli -p --resume, a process per turn", base, "baseline"),
                ("ClaudeSDKClient, one process: a turn", median(driven[1:]), "SDK client included"),
                ("stream-json, one process: a turn", median(raw[1:]), "raw NDJSON on stdin"),
                ("ClaudeSDKClient: first turn (start-up)", driven[0], "connect + initialize + turn"),
                ("stream-json: first turn (start-up)", raw[0], "process start + turn"),
            ],
            base,
        )
    )
    print(
        f"per turn, one SDK-driven process instead of a process per turn: {base / median(driven[1:]):.0f}x faster "
        f"({(base - median(driven[1:])) * 1000:.0f} ms saved a turn)"
    )


if __name__ == "__main__":
    main()
