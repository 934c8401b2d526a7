"""A tiny MCP server for the tests: stdio by default, ``--http PORT_FILE`` or ``--sse PORT_FILE`` over loopback.

``DEMO_CRASH=1`` makes it exit before answering anything; ``DEMO_GATE=FILE`` makes it wait for FILE to exist
before it starts serving (a slow server); ``DEMO_STDERR_MB=N`` makes it write N MB to stderr first;
``DEMO_PID_FILE=FILE`` makes it write its pid there; ``DEMO_SILENT=1`` makes it read its stdin and never answer (a
server that never finishes its handshake; it ignores SIGTERM and the end of its input too).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("demo")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return f"{a} + {b} = {a + b}"


@server.tool()
def greet(name: str) -> str:
    """Greet someone by name."""
    return f"Hello, {name}! ({os.environ.get('DEMO_GREETING_SUFFIX', 'no suffix')})"


@server.tool()
def crash() -> str:
    """Exit the server process at once (a server that dies mid-session)."""
    os._exit(1)


@server.tool()
def stall(gate: str) -> str:
    """Answer once the file ``gate`` exists (at most two minutes)."""
    deadline = time.monotonic() + 120
    while not Path(gate).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return "done stalling"


@server.tool()
def shout(megabytes: int) -> str:
    """Write that many megabytes to stderr, then answer."""
    flood(megabytes)
    return "shouted"


def flood(megabytes: int) -> None:
    line = b"noise " * 170 + b"\n"  # about 1 KB
    for _ in range(megabytes * 1024):
        sys.stderr.buffer.write(line)
    sys.stderr.buffer.write(b"demo server: last words\n")
    sys.stderr.buffer.flush()


def never_answer() -> None:
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(300)  # until killed; gone by itself in the end should a test leave it behind


@server.prompt()
def review(topic: str) -> str:
    """Ask for a review of a topic."""
    return f"Please review {topic} carefully."


@server.resource("demo://notes")
def notes() -> str:
    """The demo notes."""
    return "Notes from the demo server."


def main() -> None:
    if pid_file := os.environ.get("DEMO_PID_FILE"):
        Path(pid_file).write_text(str(os.getpid()))
    if os.environ.get("DEMO_STDERR_MB"):
        flood(int(os.environ["DEMO_STDERR_MB"]))
    if os.environ.get("DEMO_SILENT"):
        never_answer()
    if os.environ.get("DEMO_CRASH"):
        sys.stderr.write("demo server: refusing to start (DEMO_CRASH is set)\n")
        sys.exit(3)
    gate = os.environ.get("DEMO_GATE")
    while gate and not Path(gate).exists():
        time.sleep(0.02)
    if len(sys.argv) > 2 and sys.argv[1] in ("--http", "--sse"):
        import socket

        import uvicorn

        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)  # connections wait in the backlog until uvicorn accepts them: no refusal race
        app = server.streamable_http_app() if sys.argv[1] == "--http" else server.sse_app()
        config = uvicorn.Config(app, log_level="warning")
        port_file = Path(sys.argv[2])
        port_file.with_suffix(".tmp").write_text(str(sock.getsockname()[1]))
        port_file.with_suffix(".tmp").replace(port_file)
        uvicorn.Server(config).run(sockets=[sock])
        return
    server.run()


if __name__ == "__main__":
    main()
