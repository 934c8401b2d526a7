"""The Bash sandbox: commands run under bubblewrap with the disk read-only except the project and a private /tmp.

A shell-command parser can never be complete, so the permission rules are the first line and this is the second:
whatever a command really does, inside the sandbox it cannot write outside the project folder (plus the paths
the settings add), cannot change the protected paths inside them (:mod:`agentcli.tools.protected`: ``.git``,
``.agentcli/``, ``.claude/``, ``.mcp.json``, shell start-up files and agentcli's own folders), cannot reach the
network unless allowed — no TCP, no abstract sockets, and (:mod:`agentcli.tools.seccomp`) no unix socket files —
and cannot see other processes or the host's sockets in /tmp or /run. Capabilities are dropped so that even root
inside cannot remount anything. Where bwrap is missing or cannot start, agentcli says so once and the permission
rules alone decide, as before.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import os
import secrets
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.tools.denied_files import DeniedFiles, find_denied
from agentcli.tools.placeholders import Placeholders
from agentcli.tools.protected import Entry, Mount, Survey, home_candidates, inside, survey
from agentcli.tools.rules import RuleRoots
from agentcli.tools.seccomp import filter_path, open_filter

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"


@dataclass(frozen=True, slots=True)
class SandboxConfig:
    """The ``sandbox`` settings as the tools use them."""

    enabled: bool = True
    auto_allow: bool = False
    """Commands that would ask run without asking, because the sandbox contains them."""
    writable: tuple[Path, ...] = ()
    network: bool = False
    """Every command may use the network (otherwise only those the user approved one by one)."""
    hooks: bool = False
    """Hook commands run inside the sandbox too, under the same rules."""


@functools.lru_cache(maxsize=1)
def probe() -> str | None:
    """None when bwrap can start a sandbox here, else why not (checked once per process, about 15 ms)."""
    import subprocess

    binary = shutil.which("bwrap")
    if binary is None:
        return f"bwrap was not found ({INSTALL_HINT})"
    try:
        done = subprocess.run(
            [binary, *_base_args(network=False), "--", "true"],
            capture_output=True,
            text=True,
            timeout=10,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap could not start: {exc}"
    if done.returncode != 0:
        detail = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
        return f"bwrap could not start a sandbox here ({detail}); user namespaces may be disabled"
    return None


def _base_args(*, network: bool) -> list[str]:
    args = [
        "--die-with-parent",
        "--cap-drop",
        "ALL",
        "--unshare-pid",
        "--as-pid-1",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
    ]
    if not network:
        args += ["--unshare-net"]
        if os.path.isdir("/run"):
            args += ["--tmpfs", "/run"]  # host daemons' sockets (docker, dbus) are a way out without a network
    return args


ReadDenials = tuple[RuleRoots, Callable[[], Sequence[str]]]
"""Where ``Read(…)`` deny patterns are relative to, and how to get the current patterns."""


@dataclass(frozen=True, slots=True)
class Launch:
    """A sandboxed command ready to start: pass ``pass_fds`` to the child, close them once it started (``started``),
    and call ``ended`` once it exited (placeholders go when the session's last sandboxed command has ended)."""

    argv: list[str]
    pass_fds: tuple[int, ...]
    ended: Callable[[], None]

    def started(self) -> None:
        for fd in self.pass_fds:
            with contextlib.suppress(OSError):
                os.close(fd)


class ExitReported(asyncio.SubprocessProtocol):
    """A process's ``protocol`` as it is, plus ``on_exit`` once the process has exited."""

    def __init__(self, protocol: asyncio.SubprocessProtocol, on_exit: Callable[[], None]) -> None:
        self._protocol = protocol
        self._on_exit = on_exit

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._protocol.connection_made(transport)

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self._protocol.pipe_data_received(fd, data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self._protocol.pipe_connection_lost(fd, exc)

    def process_exited(self) -> None:
        try:
            self._protocol.process_exited()
        finally:
            self._on_exit()

    def connection_lost(self, exc: Exception | None) -> None:
        self._protocol.connection_lost(exc)


@dataclass
class Sandbox:
    """One session's sandbox: its settings, the project, and a private temp folder that is /tmp inside."""

    config: SandboxConfig
    project_dir: Path
    reported: bool = False
    """Whether the user was told that the sandbox could not start."""
    network_approved: set[str] = field(default_factory=set)
    """Tool calls the user approved in person: they may use the network."""
    read_denials: ReadDenials | None = None
    """The permission policy's ``Read(…)`` deny rules: what they name is hidden inside the sandbox."""
    _temp_dir: Path | None = field(default=None, init=False, repr=False)
    _fixed: dict[bool, list[str]] = field(default_factory=dict, init=False, repr=False)
    _denied: tuple[tuple[str, ...], DeniedFiles] | None = field(default=None, init=False, repr=False)
    _placeholders: Placeholders = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.project_dir = self.project_dir.resolve()
        self._placeholders = Placeholders(secrets.token_hex(8))

    @property
    def temp_dir(self) -> Path:
        """Made on first use, removed when agentcli exits."""
        if self._temp_dir is None:
            import tempfile

            self._temp_dir = Path(tempfile.mkdtemp(prefix="agentcli-sandbox-"))
            atexit.register(shutil.rmtree, self._temp_dir, True)
        return self._temp_dir

    @property
    def active(self) -> bool:
        return self.config.enabled and probe() is None

    @property
    def problem(self) -> str | None:
        return probe()

    def wrap(self, argv: list[str], cwd: Path, *, network: bool = False) -> list[str]:
        """``argv`` run inside the sandbox, starting in ``cwd`` (``network``: this command may use it anyway), for a
        caller that starts it as it is (a hook, a ``!`` command): a shell opens the seccomp filter for bwrap, and
        the placeholders stay until a later check finds no sandbox of the session running."""
        filtered = not (network or self.config.network) and filter_path() is not None
        args = self._args(argv, cwd, network, seccomp_fd=3 if filtered else None, tracked=False)
        if not filtered:
            return args
        return ["/bin/sh", "-c", 'exec "$@" 3<"$0"', str(filter_path()), *args]

    def launch(self, argv: list[str], cwd: Path, *, network: bool = False) -> Launch:
        """``argv`` run inside the sandbox, with the seccomp filter on a fresh descriptor when the network is off;
        the caller reports the end (``Launch.ended``)."""
        fd = None if network or self.config.network else open_filter()
        try:
            args = self._args(argv, cwd, network, seccomp_fd=fd, tracked=True)
        except BaseException:
            if fd is not None:
                os.close(fd)
            raise
        return Launch(args, () if fd is None else (fd,), self._placeholders.release)

    def _args(self, argv: list[str], cwd: Path, network: bool, *, seccomp_fd: int | None, tracked: bool) -> list[str]:
        """What never changes in a session is worked out once; each call checks which protected and denied entries
        exist now (a few ``stat`` calls) and puts placeholders where protected ones are missing."""
        args = list(self._fixed_args(network or self.config.network))
        mounts = self._placeholders.hold(self._survey, tracked=tracked)
        roots = [Mount(path, writable=True) for path in self._present_writable()]
        for mount in sorted([*roots, *mounts], key=lambda mount: mount.path):
            args += mount.args()
        for path, is_dir in self.hidden_paths():
            args += ["--tmpfs", path] if is_dir else ["--ro-bind", "/dev/null", path]
        if seccomp_fd is not None:
            args += ["--seccomp", str(seccomp_fd)]
        args += ["--chdir", str(cwd)]
        return [*args, "--", *argv]

    def _fixed_args(self, network: bool) -> list[str]:
        """The start of the command line, rebuilt only when the network flag differs."""
        if network not in self._fixed:
            binary = shutil.which("bwrap") or "bwrap"
            args = [binary, *_base_args(network=network), "--bind", str(self.temp_dir), "/tmp"]
            args += ["--setenv", "TMPDIR", "/tmp", "--setenv", "AGENTCLI_SANDBOX", self._placeholders.token]
            self._fixed[network] = args
        return self._fixed[network]

    def _present_writable(self) -> tuple[str, ...]:
        return tuple(path for path in self._writable if os.path.exists(path))

    def _survey(self, standing: frozenset[str]) -> Survey:
        roots = tuple(path for path in self._present_writable() if os.path.isdir(path))
        return survey(self._writable[0], roots, self._exempt, self._home_candidates, standing)

    @functools.cached_property
    def _writable(self) -> tuple[str, ...]:
        return tuple(str(path.expanduser().resolve()) for path in (self.project_dir, *self.config.writable))

    @functools.cached_property
    def _exempt(self) -> tuple[str, ...]:
        """Protected paths the user named in ``writablePaths`` are writable: the way to allow one."""
        return tuple(str(path.expanduser().resolve()) for path in self.config.writable)

    @functools.cached_property
    def _home_candidates(self) -> list[tuple[str, Entry]]:
        """The user-level protected paths a writable folder may hold (looked up once: the others never matter)."""
        return [
            (path, entry)
            for path, entry in home_candidates()
            if any(inside(os.path.realpath(os.path.dirname(path)), root) for root in self._writable)
        ]

    def hidden_paths(self) -> list[tuple[str, bool]]:
        """What ``Read(…)`` deny rules name and exists now: an empty folder or /dev/null inside the sandbox.
        Wildcard patterns are looked up again only when the rules change."""
        if self.read_denials is None:
            return []
        roots, current = self.read_denials
        specifiers = tuple(current())
        if self._denied is None or self._denied[0] != specifiers:
            self._denied = (specifiers, find_denied(specifiers, roots))
        return self._denied[1].present()

    def protected_paths(self) -> list[Mount]:
        """Every protected path under the writable folders now, a missing one as a read-only mount (for naming a
        blocked write)."""
        found = self._survey(self._placeholders.standing)
        return [*found.mounts, *(Mount(missing.path) for missing in found.missing)]

    def tidy(self) -> None:
        """Remove the placeholders if no sandboxed command of the session runs (also done when each ends)."""
        self._placeholders.tidy()

    def inside(self, host_path: Path) -> str:
        """Where a file of the private temp folder appears inside the sandbox."""
        return "/tmp/" + host_path.relative_to(self.temp_dir).as_posix()


def sandboxed_hook(sandbox: Sandbox, command: str, cwd: Path) -> list[str]:
    """A hook's command run inside ``sandbox`` from ``cwd`` (unconfined, as Bash commands are, where bwrap cannot
    start). Protected entries it would create are placeholders while it runs, as for a Bash command."""
    argv = ["/bin/sh", "-c", command]
    if not sandbox.active:
        return argv
    return sandbox.wrap(argv, cwd)
