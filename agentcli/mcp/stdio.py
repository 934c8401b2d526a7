"""The stdio transport to an MCP server, ours rather than the ``mcp`` package's so that nothing a server does can
hold agentcli: its stderr is drained into a bounded tail (kept for error messages, the rest dropped), a stdout line
longer than :data:`MAX_MESSAGE_BYTES` ends the connection instead of filling memory, and a server still starting
when the session ends is killed at once rather than given the grace period a connected one gets.

The server runs in a process group of its own, so stopping it stops whatever it started.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import AsyncIterator, Callable
from typing import Any

from agentcli.mcp.config import StdioServer

STDERR_TAIL_BYTES = 64 * 1024
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The longest JSON-RPC line read from a server (a tool result with a few large images fits)."""
EXIT_GRACE_S = 2.0
"""How long a connected server has to exit after its stdin closes, then again after SIGTERM, before SIGKILL."""
REAP_WAIT_S = 2.0
_POLL_S = 0.01
_READ_CHUNK = 64 * 1024


class StderrTail:
    """The last :data:`STDERR_TAIL_BYTES` a server wrote to stderr."""

    def __init__(self, limit: int = STDERR_TAIL_BYTES) -> None:
        self.limit = limit
        self._kept = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self._kept += chunk
        if len(self._kept) > self.limit:
            del self._kept[: len(self._kept) - self.limit]

    def text(self) -> str:
        return self._kept.decode("utf-8", "replace")


class MessageTooLong(Exception):
    """A server wrote a line longer than :data:`MAX_MESSAGE_BYTES`."""


@contextlib.asynccontextmanager
async def stdio_transport(
    config: StdioServer, env: dict[str, str], cwd: str, stderr: StderrTail, hurry: Callable[[], bool]
) -> AsyncIterator[tuple[Any, Any]]:
    """An ``mcp`` client transport to the server ``config`` starts; ``hurry()`` true at the end means kill it now."""
    import anyio
    from mcp.client.stdio import get_default_environment
    from mcp.shared.message import SessionMessage

    process = await anyio.open_process(
        [config.command, *config.args],
        env={**get_default_environment(), **env},
        cwd=cwd,
        start_new_session=True,
    )
    stdin, stdout, errors = process.stdin, process.stdout, process.stderr
    assert stdin is not None and stdout is not None and errors is not None, "spawned with all three pipes"
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage](0)

    async def read_stdout() -> None:
        async with to_client:
            try:
                async for line in _lines(stdout):
                    if line.strip():
                        await to_client.send(_message(line))
            except MessageTooLong as exc:
                await to_client.send(exc)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                pass

    async def write_stdin() -> None:
        async with from_client:
            try:
                async for message in from_client:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await stdin.send(text.encode() + b"\n")
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                await to_client.aclose()  # the client sees the server gone instead of a request left waiting

    async def drain_stderr() -> None:
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, OSError):
            async for chunk in errors:
                stderr.add(chunk)

    try:
        async with anyio.create_task_group() as tasks, from_server, to_server:
            tasks.start_soon(read_stdout)
            tasks.start_soon(write_stdin)
            tasks.start_soon(drain_stderr)
            try:
                yield from_server, to_server
            finally:
                tasks.cancel_scope.cancel()
    finally:
        await _stop(process, hurry())


async def _lines(stdout: Any) -> AsyncIterator[bytes]:
    pending = bytearray()
    async for chunk in stdout:
        searched = len(pending)  # what is pending holds no newline: only the new chunk is searched
        pending += chunk
        while (end := pending.find(b"\n", searched)) != -1:
            yield bytes(pending[:end])
            del pending[: end + 1]
            searched = 0
        if len(pending) > MAX_MESSAGE_BYTES:
            raise MessageTooLong(f"the server wrote a line longer than {MAX_MESSAGE_BYTES:,} bytes")


def _message(line: bytes) -> Any:
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter

    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


async def _stop(process: Any, hurry: bool) -> None:
    """A connected server gets its stdin closed and a grace period, then SIGTERM, then SIGKILL; a hurried one (still
    starting, or the stop was cancelled) is killed at once. Killing needs no await, so no cancellation can skip it."""
    try:
        if not hurry:
            with contextlib.suppress(Exception):
                await process.stdin.aclose()
            if not await _exited(process, EXIT_GRACE_S):
                _signal_group(process.pid, signal.SIGTERM)
                await _exited(process, EXIT_GRACE_S)
    except BaseException:
        _signal_group(process.pid, signal.SIGKILL)
        raise
    _signal_group(process.pid, signal.SIGKILL)  # whatever of its group is left
    await _exited(process, REAP_WAIT_S)
    for stream in (process.stdin, process.stdout, process.stderr):
        with contextlib.suppress(Exception):
            await stream.aclose()


async def _exited(process: Any, timeout: float) -> bool:
    """Whether the process ended within ``timeout`` (its return code, not ``wait()``, which also waits for pipes a
    child of the server may hold open)."""
    import anyio

    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(_POLL_S)
    return process.returncode is not None


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)
