"""Naming a sandbox block: when a command's output shows a write the sandbox refused on a protected path, the
Bash result says which path it was and how the user can allow it — instead of a bare "Read-only file system"
the model may try to work around."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from agentcli.tools.protected import Mount, inside
from agentcli.tools.sandbox import Sandbox

REFUSALS = (
    "Read-only file system",
    "Device or resource busy",
    "Operation not permitted",
    "Invalid cross-device link",
    "Is a directory",
)
"""What a refused write, move, removal or hard link on a protected path reports (EROFS, EBUSY, EPERM, EXDEV; a
missing file's placeholder is a folder: EISDIR)."""

_QUOTED = re.compile(r"'([^'\n]+)'|‘([^’\n]+)’|\"([^\"\n]+)\"")


def blocked_note(sandbox: Sandbox, output: str, cwd: Path) -> str | None:
    """One line naming the protected paths ``output`` shows a refused write on, and what would allow them; None
    when it shows none."""
    lines = [line for line in output.splitlines() if any(refusal in line for refusal in REFUSALS)]
    if not lines:
        return None
    mounts = sandbox.protected_paths()
    blocked: list[str] = []
    git_dir = os.path.join(sandbox.project_dir, ".git")
    for line in lines[:50]:
        for candidate in _candidates(line):
            named = os.path.expanduser(candidate)
            hit = _protected(os.path.join(cwd, named), mounts)
            if hit is None and not os.path.lexists(os.path.join(cwd, named)):
                # git names its own files bare ("unable to write symref for HEAD"): try them in .git, where only
                # a protected entry counts (any word would lie inside the .git folder itself)
                hit = _protected(os.path.join(git_dir, named), mounts)
                hit = None if hit == os.path.realpath(git_dir) else hit
            if hit is not None and hit not in blocked:
                blocked.append(hit)
    if not blocked:
        return None
    shown = " and ".join(_shown(path, sandbox.project_dir) for path in blocked)
    setting = json.dumps({"sandbox": {"writablePaths": blocked}})
    return (
        f"The sandbox protects {shown}: nothing inside it may write, move or remove a protected path (code that "
        f"later runs could be planted there). To allow it, approve running the command outside the sandbox "
        f"(dangerouslyDisableSandbox), or add to your settings: {setting}"
    )


def _candidates(line: str) -> list[str]:
    """Paths a message may name: quoted ones, and the parts between ``: `` (``bash: .git/config: Read-only…``)."""
    quoted = [next(group for group in match.groups() if group) for match in _QUOTED.finditer(line)]
    parts = [part.strip() for part in line.split(": ")]
    words = [word.strip("'\"‘’,;:") for word in line.split()]
    return list(dict.fromkeys(candidate for candidate in [*quoted, *parts, *words] if 0 < len(candidate) < 4096))


def _protected(path: str, mounts: list[Mount]) -> str | None:
    """The protected path ``path`` is (or lies in, for a read-only one), following symlinks as the write did."""
    real = os.path.realpath(os.path.normpath(path))
    for mount in mounts:
        if real == mount.path or (not mount.writable and inside(real, mount.path)):
            return mount.path
    return None


def _shown(path: str, project: Path) -> str:
    return os.path.relpath(path, project) if inside(path, str(project)) else path


def planted_note(paths: list[str]) -> str:
    """What to tell about embedded repositories a command registered (see :mod:`agentcli.tools.gitlinks`)."""
    named = " and ".join(paths)
    return (
        f"Warning: the command added {named} to the git index as a submodule with a .git folder it made itself; "
        f"git reads that folder's config (which can name programs to run) whenever git runs in this project. "
        f"Check {paths[0]}/.git/config before running git here, or remove the folder."
    )
