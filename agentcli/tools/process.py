"""Running a shell command as its own process group, so that a timeout or an interrupt ends all of it.

The command runs in its own process group (and session, where agentcli has a terminal): it and everything it
starts share that group.
When it times out, is cancelled, or finishes while leaving background children behind, the whole group gets
SIGTERM, then SIGKILL, and the call returns only once the group is gone (or, for what will not die, after a
bounded wait). Output is read as it arrives, capped (start and end kept), streamed to a capped spill file, and
reported as progress: memory stays flat whatever the command prints. Nothing the command can touch is opened in a
way that waits: its cwd file is read only if it is still a regular file of ours.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import functools
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcli.tools.output import CappedText
from agentcli.tools.sandbox import ExitReported, Sandbox
from agentcli.tools.spill import SpillFile
from agentcli.tools.untrusted_files import read_own_file

TERM_GRACE_S = 0.5
PROGRESS_INTERVAL_S = 0.1
PROGRESS_TAIL_CHARS = 4_000
MAX_CWD_BYTES = 8_192
"""More than any path the kernel accepts (4096 bytes)."""

# The command is the first argument; the folder to start in the second; where to leave the final folder the third.
# The final folder is written with `1<>` (read-write, no truncation): opening a FIFO the command put in the file's
# place that way never waits for a reader, so the shell cannot hang on its way out (the reader takes the first
# line only). On SIGTERM the shell first reaps its children (which got the signal too), so none is left a zombie.
_SCRIPT = (
    "__agentcli_command=$1; __agentcli_cwd_file=$3\n"
    'cd -- "$2" || exit 1\n'
    "set --\n"
    "trap 'pwd -P 2>/dev/null 1<>\"$__agentcli_cwd_file\"' EXIT\n"
    "trap 'wait; exit 143' TERM\n"
    'eval "$__agentcli_command"\n'
)


@dataclass
class CommandResult:
    exit_code: int | None
    output: str
    """stdout and stderr interleaved as they arrived, with the middle cut out if it was too long."""
    stdout: str
    stderr: str
    timed_out: bool
    final_cwd: Path | None
    full_output_path: Path | None
    truncated: bool
    stdout_lines: int = 0
    """Lines written to stdout in all, including any cut from ``stdout``."""


def _shell() -> str:
    return shutil.which("bash") or "/bin/sh"


@functools.cache
def _has_terminal() -> bool:
    try:
        os.close(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
    except OSError:
        return False
    return True


def apart() -> dict[str, Any]:
    """How a command is set apart from agentcli: its own session where agentcli has a terminal (so the command
    cannot read from, stop on or type into it), otherwise its own process group, which is all that ending it
    needs — and a sandbox that is not a session leader starts several milliseconds faster."""
    return {"start_new_session": True} if _has_terminal() else {"process_group": 0}


def group_alive(pgid: int) -> bool:
    """Whether any process of the group is still running (zombies waiting for init to reap them do not count)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # the id now belongs to someone else's group: ours is gone
    return any(state != "Z" for state in _group_states(pgid, default=["?"]))


def _group_states(pgid: int, default: list[str]) -> list[str]:
    """The states (R, S, Z…) of the group's processes, read from /proc; ``default`` where there is no /proc."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return default
    states = []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        fields = data[data.rfind(b")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid:
            states.append(fields[0].decode())
    return states


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _until(condition: Callable[[], bool], timeout_s: float, step_s: float = 0.01) -> bool:
    """Poll ``condition``: every millisecond at first (a sandbox's init process is usually gone by then), then less
    often, up to every ``step_s``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    step = min(0.001, step_s)
    while not condition():
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(step)
        step = min(step * 2, step_s)
    return True


async def end_group(pgid: int, exited: asyncio.Event, grace_s: float = TERM_GRACE_S) -> None:
    """SIGTERM the process group, SIGKILL whatever is left after ``grace_s``, and wait until it is gone."""
    if group_alive(pgid):
        _signal_group(pgid, signal.SIGTERM)
        await _until(lambda: not group_alive(pgid) and exited.is_set(), grace_s, 0.02)
    _signal_group(pgid, signal.SIGKILL)
    await _until(lambda: not group_alive(pgid) and exited.is_set(), 2.0, 0.02)


class _Collector:
    """What a command printed: start and end of each stream in memory, and the whole of it in a spill file once
    it outgrows the cap (so the model can read the cut part). Nothing here grows with the output."""

    def __init__(self, limit: int, spill_path: Path | None, report: Callable[[str], None] | None) -> None:
        self.combined = CappedText(limit)
        self.stdout = CappedText(limit)
        self.stderr = CappedText(limit)
        self._limit = limit
        self._spill_path = spill_path
        self._spill: SpillFile | None = None
        self._early: list[str] = []
        self.spilled: Path | None = None
        self._report = report
        self._last_report = 0.0
        self._pending = False

    def add(self, text: str, stream: str) -> None:
        if not text:
            return
        self.combined.append(text)
        (self.stdout if stream == "stdout" else self.stderr).append(text)
        self._keep(text)
        self._pending = True
        self.flush_progress()

    def _keep(self, text: str) -> None:
        """Hold the output while it fits the cap; past it, stream everything to the spill file."""
        if self._spill_path is None:
            return
        if self._spill is None:
            self._early.append(text)
            if self.combined.total <= self._limit:
                return
            spill = SpillFile(self._spill_path)
            try:
                spill.open()
            except OSError:
                self._spill_path = None
                self._early.clear()
                return
            self._spill = spill
            text = "".join(self._early)
            self._early.clear()
        self._spill.write(text)

    def flush_progress(self, force: bool = False) -> None:
        if self._report is None or not self._pending:
            return
        now = time.monotonic()
        if force or now - self._last_report >= PROGRESS_INTERVAL_S:
            self._last_report = now
            self._pending = False
            self._report(self.combined.tail(PROGRESS_TAIL_CHARS))

    def close(self) -> None:
        """Finish the spill file (the end of the output goes after its note when the cap cut it)."""
        if self._spill is not None:
            self.spilled = self._spill.close(self.combined.tail(self._limit))


class _ShellProtocol(asyncio.SubprocessProtocol):
    """Feeds the collector as output arrives and notes when the shell exits and when its pipes close.

    (``Process.wait()`` would also wait for the pipes, which a background child may hold open for ever.)
    """

    def __init__(self, collector: _Collector) -> None:
        self.collector = collector
        self.exited = asyncio.Event()
        self.closed = asyncio.Event()
        self._decoders = {fd: codecs.getincrementaldecoder("utf-8")("replace") for fd in (1, 2)}
        self._open = {1, 2}

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        if isinstance(data, bytes):
            data = self._decoders[fd].decode(data)
        self.collector.add(data, "stdout" if fd == 1 else "stderr")

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd in self._open:
            self.collector.add(self._decoders[fd].decode(b"", final=True), "stdout" if fd == 1 else "stderr")
            self._open.discard(fd)
        if not self._open:
            self.closed.set()

    def process_exited(self) -> None:
        self.exited.set()


async def _end_once_started(creating: asyncio.Future[Any], protocol: _ShellProtocol) -> None:
    try:
        transport, _ = await creating
    except BaseException:
        return  # it never started
    try:
        await end_group(transport.get_pid(), protocol.exited)
    finally:
        transport.close()


async def _wait(event: asyncio.Event, timeout_s: float) -> bool:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), timeout_s)
    return event.is_set()


async def spawn_shell(
    protocol: asyncio.SubprocessProtocol,
    command: str,
    *,
    cwd: Path,
    env: dict[str, str],
    cwd_file: str,
    sandbox: Sandbox | None = None,
    network: bool = False,
) -> tuple[asyncio.SubprocessTransport, asyncio.SubprocessProtocol]:
    """Start ``command`` in the user's shell as the leader of a new process group (its pid is the group's id),
    inside ``sandbox`` when given (``network``: this command may use it).

    Every command the model runs starts here, in the foreground or the background. A sandboxed one gets the
    seccomp filter on a descriptor of its own, and the sandbox hears when it exits (its placeholders may go)."""
    argv = [_shell(), "-c", _SCRIPT, "agentcli", command, str(cwd), cwd_file]
    launch = None
    if sandbox is not None:
        inside_temp = Path(cwd_file).is_relative_to(sandbox.temp_dir)
        argv[-1] = sandbox.inside(Path(cwd_file)) if inside_temp else "/dev/null"
        launch = sandbox.launch(argv, cwd, network=network)
        argv, protocol = launch.argv, ExitReported(protocol, launch.ended)
    loop = asyncio.get_running_loop()
    try:
        return await loop.subprocess_exec(
            lambda: protocol,
            *argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=str(cwd),
            env=env,
            pass_fds=launch.pass_fds if launch is not None else (),
            **apart(),
        )
    except BaseException:
        if launch is not None:
            launch.ended()
        raise
    finally:
        if launch is not None:
            launch.started()


async def run_shell(
    command: str,
    *,
    cwd: Path,
    env: dict[str, str],
    timeout_s: float,
    limit: int,
    spill_path: Path | None = None,
    report: Callable[[str], None] | None = None,
    sandbox: Sandbox | None = None,
    network: bool = False,
) -> CommandResult:
    """Run ``command`` with the user's shell in ``cwd`` (inside ``sandbox`` when given); cancellation and timeouts
    end its whole process group."""
    fd, cwd_file = tempfile.mkstemp(prefix="agentcli-cwd-", dir=sandbox.temp_dir if sandbox is not None else None)
    os.close(fd)
    collector = _Collector(limit, spill_path, report)
    protocol = _ShellProtocol(collector)
    transport: asyncio.SubprocessTransport | None = None
    timed_out = False
    loop = asyncio.get_running_loop()
    creating = asyncio.ensure_future(
        spawn_shell(protocol, command, cwd=cwd, env=env, cwd_file=cwd_file, sandbox=sandbox, network=network)
    )
    try:
        try:
            # Shielded: cancelled half-way, asyncio would kill only the shell and then wait for its pipes, which
            # a child may hold for as long as it runs. Let the start finish, then end the whole group.
            transport, _ = await asyncio.shield(creating)
        except asyncio.CancelledError:
            await asyncio.shield(_end_once_started(creating, protocol))
            raise
        assert transport is not None  # started: the shell has a process
        pgid = transport.get_pid()
        task = asyncio.current_task()
        try:
            deadline = loop.time() + timeout_s
            while not protocol.exited.is_set():
                remaining = deadline - loop.time()
                if remaining <= 0:
                    timed_out = True
                    break
                await _wait(protocol.exited, min(remaining, 0.25))
                if task is not None and task.cancelling():
                    raise asyncio.CancelledError  # a cancel that wait_for let slip (Python 3.11) still counts
                collector.flush_progress()
            if not timed_out:
                # The shell is done; what is left in the pipes arrives at once unless a background child holds them.
                await _wait(protocol.closed, 0.1)
            await end_group(pgid, protocol.exited, TERM_GRACE_S if timed_out else 0.1)
            await _wait(protocol.closed, 1.0)
        except asyncio.CancelledError:
            await asyncio.shield(end_group(pgid, protocol.exited))
            raise
    finally:
        if transport is not None:
            if group_alive(transport.get_pid()):  # cancelled again while ending the group: no more waiting
                _signal_group(transport.get_pid(), signal.SIGKILL)
            transport.close()
        collector.close()
        final_cwd = _read_cwd(cwd_file)
    return CommandResult(
        exit_code=transport.get_returncode(),
        output=collector.combined.render(),
        stdout=collector.stdout.render(),
        stderr=collector.stderr.render(),
        timed_out=timed_out,
        final_cwd=final_cwd,
        full_output_path=collector.spilled,
        truncated=collector.combined.truncated,
        stdout_lines=collector.stdout.line_count,
    )


def _read_cwd(path: str) -> Path | None:
    """The folder the command ended in, from the file its shell wrote. The command could have replaced that file
    (with a FIFO, a symlink, anything): it is read only if it is still a regular file of ours, without waiting,
    and only a folder that exists counts."""
    try:
        text = read_own_file(path, MAX_CWD_BYTES)
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
    line = text.split("\n", 1)[0]
    if not line.startswith("/") or "\0" in line or not os.path.isdir(line):
        return None
    return Path(line)
