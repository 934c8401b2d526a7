"""Background shells: ``Bash`` with ``run_in_background`` starts a command and returns its id at once; ``BashOutput``
reads what it printed since the last look; ``KillShell`` stops it. Every shell still running when the session
ends is stopped with its whole process group, so nothing is left behind.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import tempfile
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli.tools.process import end_group, group_alive, spawn_shell

MAX_READ_CHARS = 30_000
MAX_KEPT_CHARS = 2_000_000
"""Unread output kept per stream: when nobody reads, the oldest goes, so a chatty server never stalls (nor
grows agentcli's memory)."""


@dataclass
class UnreadOutput:
    """What one stream printed since the last read: its newest :data:`MAX_KEPT_CHARS` (give or take one chunk),
    and how many characters went before anyone read them."""

    chunks: deque[str] = field(default_factory=deque)
    size: int = 0
    dropped: int = 0

    def add(self, text: str) -> None:
        if not text:
            return
        self.chunks.append(text)
        self.size += len(text)
        while self.size - len(self.chunks[0]) >= MAX_KEPT_CHARS:
            first = self.chunks.popleft()
            self.size -= len(first)
            self.dropped += len(first)

    def take(self) -> str:
        """Everything kept (the newest part when there is too much), and the store emptied."""
        text = "".join(self.chunks)
        skipped = self.dropped + max(0, len(text) - MAX_READ_CHARS)
        self.chunks.clear()
        self.size = self.dropped = 0
        if skipped:
            return f"[{skipped} earlier characters not shown]\n" + text[-MAX_READ_CHARS:]
        return text


@dataclass
class BackgroundShell:
    id: str
    command: str
    description: str | None
    started_at: float = field(default_factory=time.time)
    status: str = "running"  # running | completed | failed | killed
    exit_code: int | None = None
    stdout: UnreadOutput = field(default_factory=UnreadOutput)
    stderr: UnreadOutput = field(default_factory=UnreadOutput)
    pgid: int | None = None
    exited: asyncio.Event = field(default_factory=asyncio.Event)
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once both output pipes are closed: everything the command printed has been read."""

    def take_new(self, stream: str) -> str:
        """What ``stream`` printed since the last call (the newest part when there is too much)."""
        return (self.stdout if stream == "stdout" else self.stderr).take()


class _Protocol(asyncio.SubprocessProtocol):
    def __init__(self, shell: BackgroundShell, on_exit: Callable[[int | None], None]) -> None:
        self.shell = shell
        self._on_exit = on_exit
        self._transport: asyncio.SubprocessTransport | None = None
        self._decoders = {fd: codecs.getincrementaldecoder("utf-8")("replace") for fd in (1, 2)}
        self._open = {1, 2}

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.SubprocessTransport)
        self._transport = transport
        self.shell.pgid = transport.get_pid()

    def _stream(self, fd: int) -> UnreadOutput:
        return self.shell.stdout if fd == 1 else self.shell.stderr

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self._stream(fd).add(self._decoders[fd].decode(data))

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd in self._open:
            self._open.discard(fd)
            self._stream(fd).add(self._decoders[fd].decode(b"", final=True))
        if not self._open:
            self.shell.closed.set()

    def process_exited(self) -> None:
        self.shell.exited.set()
        self._on_exit(self._transport.get_returncode() if self._transport is not None else None)


class BackgroundShells:
    """The session's background shells (a session service: :meth:`aclose` stops them all)."""

    def __init__(self) -> None:
        self.shells: dict[str, BackgroundShell] = {}
        self._transports: dict[str, asyncio.SubprocessTransport] = {}
        self._count = 0
        self._listeners: list[Callable[[], None]] = []
        self._reapers: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        """Nothing runs until a command is started."""

    def on_change(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    def running(self) -> list[BackgroundShell]:
        return [shell for shell in self.shells.values() if shell.status == "running"]

    async def launch(
        self,
        command: str,
        *,
        cwd: Path,
        env: dict[str, str],
        description: str | None,
        sandbox: Any = None,
        network: bool = False,
    ) -> BackgroundShell:
        self._count += 1
        shell = BackgroundShell(f"bash_{self._count}", command, description)
        fd, cwd_file = tempfile.mkstemp(prefix="agentcli-cwd-")
        os.close(fd)
        protocol = _Protocol(shell, lambda code: self._exited(shell, cwd_file, code))
        transport, _ = await spawn_shell(
            protocol, command, cwd=cwd, env=env, cwd_file=cwd_file, sandbox=sandbox, network=network
        )
        self.shells[shell.id] = shell
        self._transports[shell.id] = transport
        self._changed()
        return shell

    def _exited(self, shell: BackgroundShell, cwd_file: str, code: int | None) -> None:
        with contextlib.suppress(OSError):
            os.unlink(cwd_file)
        if shell.status == "running":
            shell.exit_code = code
            shell.status = "completed" if code == 0 else "failed"
        # Children it left behind belong to the shell's group: end them too.
        if shell.pgid is not None and group_alive(shell.pgid):
            task = asyncio.get_running_loop().create_task(end_group(shell.pgid, shell.exited, 0.1))
            self._reapers.add(task)
            task.add_done_callback(self._reapers.discard)
        self._changed()

    async def kill(self, shell_id: str) -> BackgroundShell:
        shell = self.shells[shell_id]
        if shell.status == "running" and shell.pgid is not None:
            shell.status = "killed"
            await end_group(shell.pgid, shell.exited)
            transport = self._transports.get(shell_id)
            shell.exit_code = transport.get_returncode() if transport is not None else None
            self._changed()
        return shell

    async def aclose(self) -> None:
        """Stop every running shell and its children; returns once they are gone."""
        await asyncio.gather(*(self.kill(shell.id) for shell in self.running()), return_exceptions=True)
        if self._reapers:
            await asyncio.gather(*self._reapers, return_exceptions=True)
        for transport in self._transports.values():
            transport.close()
        self._transports.clear()


def shells_report(shells: BackgroundShells | None) -> tuple[str, str]:
    """``/bashes``: the session's background shells, running first, with status and command."""
    listed = sorted(shells.shells.values(), key=lambda s: s.status != "running") if shells is not None else []
    if not listed:
        return "No background shells", "Commands the agent runs with run_in_background are listed here."
    lines = []
    for shell in listed:
        code = f" (exit {shell.exit_code})" if shell.exit_code is not None else ""
        lines.append(f"{shell.id} · {shell.status}{code} · {shell.description or shell.command}")
        if shell.description:
            lines.append(f"  $ {shell.command}")
    running = sum(1 for shell in listed if shell.status == "running")
    return f"Background shells ({running} running)", "\n".join(lines)
