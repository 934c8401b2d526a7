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
import shlex
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.tools.denied_files import DeniedFiles, find_denied
from agentcli.tools.rules import RuleRoots

PROTECTED = (".git/hooks", ".git/config", ".git/config.worktree", ".git/modules", ".agentcli", ".claude", ".mcp.json")
"""Inside the project, read-only in the sandbox: what would make later runs (git, agentcli) execute code
(``.git/modules`` holds the submodules' own configs, which ``git status`` reads)."""
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
    _fixed: dict[tuple[bool, tuple[str, ...]], list[str]] = field(default_factory=dict, init=False, repr=False)
    _denied: tuple[tuple[str, ...], DeniedFiles] | None = field(default=None, init=False, repr=False)

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
        """``argv`` run inside the sandbox, starting in ``cwd`` (``network``: this command may use it anyway).

        What never changes in a session is worked out once; each call only checks which protected and denied
        entries exist now (a few ``stat`` calls)."""
        args = list(self._fixed_args(network or self.config.network))
        for path in self._protected:
            if os.path.exists(path):
                real = os.path.realpath(path)
                args += ["--ro-bind", real, real]
        for path, is_dir in self.hidden_paths():
            args += ["--tmpfs", path] if is_dir else ["--ro-bind", "/dev/null", path]
        args += ["--chdir", str(cwd)]
        return [*args, "--", *argv]

    def _fixed_args(self, network: bool) -> list[str]:
        """The start of the command line, rebuilt only when a writable path appears or goes (or the network flag
        differs)."""
        present = tuple(path for path in self._writable if os.path.exists(path))
        key = (network, present)
        if key not in self._fixed:
            binary = shutil.which("bwrap") or "bwrap"
            args = [binary, *_base_args(network=network), "--bind", str(self.temp_dir), "/tmp"]
            for path in present:
                args += ["--bind", path, path]
            args += ["--setenv", "TMPDIR", "/tmp", "--setenv", "AGENTCLI_SANDBOX", "1"]
            self._fixed[key] = args
        return self._fixed[key]

    @functools.cached_property
    def _writable(self) -> tuple[str, ...]:
        return tuple(str(path.expanduser().resolve()) for path in (self.project_dir, *self.config.writable))

    @functools.cached_property
    def _protected(self) -> tuple[str, ...]:
        """The protected entries' paths (each mount resolves them, so a symlink cannot point it elsewhere)."""
        return tuple(str(self.project_dir / name) for name in PROTECTED)

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

    def missing_protected(self) -> list[Path]:
        return [Path(path) for path in self._protected if not os.path.exists(path)]

    def inside(self, host_path: Path) -> str:
        """Where a file of the private temp folder appears inside the sandbox."""
        return "/tmp/" + host_path.relative_to(self.temp_dir).as_posix()


def sandboxed_hook(sandbox: Sandbox, command: str, cwd: Path) -> list[str]:
    """A hook's command run inside ``sandbox`` from ``cwd`` (unconfined, as Bash commands are, where
    bwrap cannot start). Protected entries the hook creates where none were are removed once it ends, as after a
    Bash command."""
    argv = ["/bin/sh", "-c", command]
    if not sandbox.active:
        return argv
    missing = " ".join(shlex.quote(str(path)) for path in sandbox.missing_protected())
    wrapped = sandbox.wrap(argv, cwd)
    if not missing:
        return wrapped
    return ["/bin/sh", "-c", f'"$@"; status=$?; rm -rf -- {missing}; exit $status', "sh", *wrapped]


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
