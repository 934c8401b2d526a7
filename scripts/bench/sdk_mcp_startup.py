"""What an MCP server hosted by the driving program costs the first turn: the official Agent SDK's ``query()``
start → first request at the fake server, with one in-process ``create_sdk_mcp_server`` server (whose handshake the
first request waits for, so that its tools are offered) against the same run without it; interleaved in one run.
Target: with the server ≤ 1.25x without (the wait is the ``mcp`` client's import plus a few messages on the pipes).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import answering_server, median, table

AGENTCLI = str(Path(sys.executable).with_name("agentcli"))


def calculator() -> Any:
    from claude_agent_sdk import create_sdk_mcp_server, tool

    @tool("add", "Add two numbers", {"a": int, "b": int})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    return create_sdk_mcp_server("calc", tools=[add])


async def first_request(server: Any, env: dict[str, str], cwd: str, hosted: bool) -> float:
    from claude_agent_sdk import ClaudeAgentOptions, query

    extra: dict[str, Any] = {"mcp_servers": {"calc": calculator()}} if hosted else {}
    options = ClaudeAgentOptions(cli_path=AGENTCLI, cwd=cwd, env=env, **extra)
    seen = len(server.requests)
    start = time.monotonic()
    async for _message in query(prompt="hi", options=options):
        pass
    return server.requests[seen].time - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    server, env = answering_server()
    plain: list[float] = []
    hosted: list[float] = []
    with tempfile.TemporaryDirectory() as cwd:
        for _ in range(args.runs):
            plain.append(asyncio.run(first_request(server, env, cwd, hosted=False)))
            hosted.append(asyncio.run(first_request(server, env, cwd, hosted=True)))
    server.stop()
    print(f"runs: {args.runs} (interleaved)")
    print(
        table(
            [
                ("SDK query(): start → first request", median(plain), "no MCP server"),
                (
                    "SDK query() with an in-process MCP server: start → first request",
                    median(hosted),
                    "its tools offered in that request; target ≤ 1.25x",
                ),
            ],
            median(plain),
        )
    )


if __name__ == "__main__":
    main()
