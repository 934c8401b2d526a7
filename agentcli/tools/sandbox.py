"""The Bash sandbox: commands run under bubblewrap with the disk read-only except the project and a private /tmp.

A shell-command parser can never be complete, so the permission rules are the first line and this is the second:
whatever a command really does, inside the sandbox it cannot write outside the project folder (plus the paths
the settings add), cannot change ``.git/hooks``, ``.git/config``, ``.agentcli/``, ``.claude/`` or the settings
files, cannot reach the network unless allowed, and cannot see other processes or the host's sockets in /tmp or
/run. Capabilities are dropped so that even root inside cannot remount anything. Where bwrap is missing or
cannot start, agentcli says so once and the permission rules alone decide, as before.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

PROTECTED = (".git/hooks", ".git/config", ".agentcli", ".claude", ".mcp.json")
"""Inside the project, read-only in the sandbox: what would make later runs (git, agentcli) execute code."""
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


@dataclass
class Sandbox:
    """One session's sandbox: its settings, the project, and a private temp folder that is /tmp inside."""

    config: SandboxConfig
    project_dir: Path
    reported: bool = False
    """Whether the user was told that the sandbox could not start."""
    network_approved: set[str] = field(default_factory=set)
    """Tool calls the user approved in person: they may use the network."""
    _temp_dir: Path | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.project_dir = self.project_dir.resolve()

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
        """``argv`` run inside the sandbox, starting in ``cwd`` (``network``: this command may use it anyway)."""
        binary = shutil.which("bwrap") or "bwrap"
        args = [binary, *_base_args(network=network or self.config.network), "--bind", str(self.temp_dir), "/tmp"]
        for path in (self.project_dir, *self.config.writable):
            real = path.expanduser().resolve()
            if real.exists():
                args += ["--bind", str(real), str(real)]
        for path in self.protected_paths():
            args += ["--ro-bind", str(path), str(path)]
        args += ["--setenv", "TMPDIR", "/tmp", "--setenv", "AGENTCLI_SANDBOX", "1", "--chdir", str(cwd)]
        return [*args, "--", *argv]

    def protected_paths(self) -> list[Path]:
        """The protected entries that exist now (resolved, so a symlink cannot point the mount elsewhere)."""
        found = []
        for name in PROTECTED:
            path = self.project_dir / name
            if path.exists():
                found.append(path.resolve())
        return found

    def missing_protected(self) -> list[Path]:
        return [self.project_dir / name for name in PROTECTED if not (self.project_dir / name).exists()]

    def inside(self, host_path: Path) -> str:
        """Where a file of the private temp folder appears inside the sandbox."""
        return "/tmp/" + host_path.relative_to(self.temp_dir).as_posix()


def remove_created(paths: list[Path]) -> list[Path]:
    """Protected entries a sandboxed command created where none were (they could not be mounted read-only before
    they existed): removed, and returned so the command's result can say so."""
    removed = []
    for path in paths:
        if not os.path.lexists(path):
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        removed.append(path)
    return removed
