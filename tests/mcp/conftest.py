"""MCP test helpers: configs for the demo server over stdio, streamable HTTP and SSE."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.waiting import wait_until

DEMO_SERVER = Path(__file__).with_name("demo_server.py")


def stdio_config(name: str = "demo", **env: str) -> str:
    return json.dumps({"mcpServers": {name: {"command": sys.executable, "args": [str(DEMO_SERVER)], "env": env}}})


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[Callable[[str], str]]:
    """Start the demo server over ``--http`` or ``--sse`` on a loopback port; returns its URL."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(kind: str) -> str:
        port_file = tmp_path / f"{kind}-{len(processes)}.port"
        process = subprocess.Popen(
            [sys.executable, str(DEMO_SERVER), f"--{kind}", str(port_file)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        processes.append(process)
        # the server writes the port file once it listens
        wait_until(lambda: port_file.exists() or process.poll() is not None, f"the {kind} demo server to listen")
        assert process.poll() is None, f"the {kind} demo server exited with {process.returncode}"
        port = port_file.read_text()
        return f"http://127.0.0.1:{port}/mcp" if kind == "http" else f"http://127.0.0.1:{port}/sse"

    yield start
    for process in processes:
        process.kill()
        process.wait()


def request_tools(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in body.get("tools", [])}


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    last = body["messages"][-1]
    return [block for block in last["content"] if isinstance(block, dict) and block.get("type") == "tool_result"]
