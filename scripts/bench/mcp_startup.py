"""Does configuring an MCP server delay the first request? ``agentcli -p`` start → first request with a stdio MCP
server configured (its ``mcp`` import and start run in the background) against the same run without one, and
against the floor ``python -c "import anthropic"``; all interleaved in one run.
Target: with a server ≤ 1.10x without.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time

from _common import PYTHON, ROOT, answering_server, median, table, time_import_anthropic

SERVER = ROOT / "tests" / "mcp" / "demo_server.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    server, env = answering_server()
    config = json.dumps({"mcpServers": {"demo": {"command": PYTHON, "args": [str(SERVER)]}}})
    floor: list[float] = []
    plain: list[float] = []
    with_mcp: list[float] = []
    with tempfile.TemporaryDirectory() as cwd:
        for _ in range(args.runs):
            floor.append(time_import_anthropic(env))
            for extra, into in (([], plain), (["--mcp-config", config], with_mcp)):
                seen = len(server.requests)
                start = time.monotonic()
                subprocess.run(
                    [PYTHON, "-m", "agentcli", "-p", "hi", *extra],
                    check=True,
                    env=env,
                    cwd=cwd,
                    stdout=subprocess.DEVNULL,
                )
                into.append(server.requests[seen].time - start)
    server.stop()
    print(f"runs: {args.runs} (interleaved)")
    print(
        table(
            [
                ('python -c "import anthropic"', median(floor), "floor"),
                ("agentcli -p: start → first request", median(plain), "no MCP server"),
                (
                    "agentcli -p --mcp-config: start → first request",
                    median(with_mcp),
                    "one stdio server; target ≤ 1.10x",
                ),
            ],
            median(plain),
        )
    )


if __name__ == "__main__":
    main()
