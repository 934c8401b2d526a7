"""Protected paths: what the sandbox keeps read-only inside the folders it lets commands write.

Writing these would make a later program run code the model chose — git (a ``.git`` config, hooks, a moved or
replaced ``.git``, a ``commondir`` or a ``.git`` file pointing at a planted repository), agentcli or Claude Code
(their settings, hooks, MCP servers, transcripts), a shell (its start-up files), ssh or gpg. Each is bound
read-only onto itself at its real path, so a symlink cannot point the mount elsewhere, and a mount point cannot be
renamed, removed or hard-linked (EBUSY, EXDEV). The ``.git`` folder itself is bound onto itself *writable*: it
cannot be moved or replaced, but objects, refs and the index still change, so ``git add`` and ``git commit``
work inside.

A protected entry that does not exist yet can only be kept from being created by a mount point on its name: a
*placeholder* (an empty folder, or a file whose content means what its absence meant), made by agentcli before the
command starts and removed once no sandboxed command of the session runs — only while it is still the very one
agentcli made, unchanged. Whatever the user puts there meanwhile stays.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterable
from dataclasses import dataclass, replace

from agentcli.config.paths import claude_dir, config_dir, data_dir

FOLDER = None
"""A placeholder's content that means: an empty folder."""

_BASH_LOGIN_NEXT = (
    'if [ -f "$HOME/.bash_login" ] && [ ! -d "$HOME/.bash_login" ]; then . "$HOME/.bash_login"; '
    'elif [ -f "$HOME/.profile" ]; then . "$HOME/.profile"; fi\n'
)
_PROFILE_NEXT = 'if [ -f "$HOME/.profile" ]; then . "$HOME/.profile"; fi\n'


@dataclass(frozen=True, slots=True)
class Entry:
    """One protected name: ``placeholder`` is what stands in for it while it is missing (FOLDER: an empty
    folder); ``only_existing``: a missing one means nothing to any program, so it needs none; ``fixed``: bound
    writable, only kept from being moved or removed."""

    name: str
    placeholder: str | None = FOLDER
    only_existing: bool = False
    fixed: bool = False


ROOT_ENTRIES = (Entry(".agentcli"), Entry(".claude"), Entry(".mcp.json"))
"""In every writable folder, next to ``.git``. A missing ``.mcp.json`` stands in as a folder, which every reader
skips and ``git add`` does not pick up."""

GIT_DIR_ENTRIES = (
    Entry("config", ""),
    Entry("config.worktree", only_existing=True),  # read only with extensions.worktreeConfig, set in config
    Entry("hooks"),
    Entry("commondir", ".\n"),  # "." names the folder itself: what a missing commondir means
    Entry("HEAD", only_existing=True),
    Entry("objects", only_existing=True, fixed=True),
    Entry("refs", only_existing=True, fixed=True),
    Entry("modules"),  # the submodules' git folders: their configs and hooks
    Entry("worktrees", only_existing=True),  # the linked worktrees' git folders: their commondir, config.worktree
)
"""Inside a git folder (``.git``, or the one a ``.git`` file names). HEAD, ``objects`` and ``refs`` are what makes
it a git folder: were one gone, git would look further — at the project folder itself, as a bare repository whose
``config`` the command planted. ``info`` is not here: its ``attributes`` can only name drivers a config defines,
as a ``.gitattributes`` in the project can."""

BARE_REPOSITORY_ENTRY = Entry("HEAD")
"""Next to a ``.git`` that is no git folder (none yet, or a placeholder): a folder named HEAD keeps the project
folder from passing for a bare repository."""

HOME_ENTRIES = (
    Entry(".bashrc", ""),
    Entry(".bash_profile", _BASH_LOGIN_NEXT),  # bash reads the first of these three that exists
    Entry(".bash_login", _PROFILE_NEXT),
    Entry(".profile", ""),
    Entry(".bash_logout", ""),
    Entry(".zshenv", ""),
    Entry(".zshrc", ""),
    Entry(".zprofile", ""),
    Entry(".zlogin", ""),
    Entry(".zlogout", ""),
    Entry(".config/fish"),
    Entry(".gitconfig", ""),
    Entry(".config/git"),
    Entry(".ssh"),
    Entry(".gnupg"),
    Entry(".config/systemd"),
    Entry(".config/autostart"),
    Entry(".config/environment.d"),
    Entry(".local/bin"),
    Entry("bin"),
    Entry(".claude.json", ""),
)
"""Under ``$HOME``, protected wherever a writable folder holds them (the project may be ``$HOME`` itself)."""


@dataclass(frozen=True, slots=True)
class Mount:
    """One bind of a protected path onto itself (``writable``: the ``.git`` folder, fixed in place only)."""

    path: str
    writable: bool = False

    def args(self) -> list[str]:
        return ["--bind" if self.writable else "--ro-bind", self.path, self.path]


@dataclass(frozen=True, slots=True)
class Missing:
    """A protected path that does not exist: a placeholder goes at ``path`` (its first missing part)."""

    path: str
    placeholder: str | None


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def home_candidates() -> list[tuple[str, Entry]]:
    """Every user-level path that is protected when a writable folder holds it: the start-up files, and
    agentcli's and Claude Code's own folders (wherever XDG_* and CLAUDE_CONFIG_DIR put them)."""
    home = os.path.expanduser("~")
    paths = [(os.path.join(home, entry.name), entry) for entry in HOME_ENTRIES]
    for folder in (config_dir(), data_dir(), claude_dir()):
        paths.append((str(folder), Entry(folder.name)))
    return paths


class Survey:
    """Where the protected paths under the writable folders are right now (a few ``stat`` calls per command)."""

    def __init__(self, roots: Iterable[str], exempt: Iterable[str], standing: frozenset[str]) -> None:
        self.roots = tuple(roots)
        self.exempt = frozenset(exempt)
        self.standing = standing
        """Placeholders agentcli made: read-only, whatever they are (a ``.git`` placeholder is no git folder)."""
        self.mounts: list[Mount] = []
        self.missing: list[Missing] = []

    def writable_root(self, real: str) -> str | None:
        return next((root for root in self.roots if inside(real, root)), None)

    def add(self, path: str, entry: Entry, *, writable: bool = False) -> str | None:
        """Protect ``path`` (resolved); returns its real path when it exists, else None."""
        real = os.path.realpath(path)
        root = self.writable_root(real)
        if root is None or real in self.exempt:
            return None  # outside every writable folder: read-only anyway (or the user made it writable)
        if real in self.standing:
            self.mounts.append(Mount(real))
            return None
        if os.path.lexists(real):
            self.mounts.append(Mount(real, writable))
            return real
        if not entry.only_existing:
            self.missing.append(_first_missing(real, root, entry.placeholder))
        return None

    def add_root(self, root: str, *, placeholders: bool) -> None:
        """The names next to ``.git`` in a writable folder; ``placeholders``: also the missing ones (the project;
        in an extra writable folder, such as a cache, only what is there is protected)."""
        dot_git = os.path.join(root, ".git")
        self.add_git(dot_git, placeholders=placeholders)
        if placeholders and not os.path.isfile(dot_git) and not _is_git_dir(dot_git, self.standing):
            self.add(os.path.join(root, BARE_REPOSITORY_ENTRY.name), BARE_REPOSITORY_ENTRY)
        for entry in ROOT_ENTRIES:
            self.add(os.path.join(root, entry.name), entry if placeholders else replace(entry, only_existing=True))

    def add_git(self, dot_git: str, *, placeholders: bool) -> None:
        """``.git``: a folder (fixed in place, its key files read-only) or a file naming a git folder elsewhere
        (read-only, and that folder protected too when it is writable)."""
        entry = Entry(".git", only_existing=not placeholders)
        real = self.add(dot_git, entry, writable=os.path.isdir(dot_git))
        if real is None:
            return
        if os.path.isdir(real):
            self.add_git_dir(real)
            return
        target = _gitdir_named(real)
        if target is not None and self.writable_root(os.path.realpath(target)) is not None:
            git_dir = self.add(target, Entry(".git", only_existing=True), writable=True)
            if git_dir is not None and os.path.isdir(git_dir):
                self.add_git_dir(git_dir)

    def add_git_dir(self, git_dir: str) -> None:
        for entry in GIT_DIR_ENTRIES:
            self.add(os.path.join(git_dir, entry.name), entry, writable=entry.fixed)


def _is_git_dir(path: str, standing: frozenset[str]) -> bool:
    """What git checks: HEAD, ``objects`` and ``refs`` (a placeholder is no git folder)."""
    real = os.path.realpath(path)
    return real not in standing and all(
        os.path.exists(os.path.join(real, name)) for name in ("HEAD", "objects", "refs")
    )


def survey(
    project: str,
    roots: Iterable[str],
    exempt: Iterable[str],
    home: Iterable[tuple[str, Entry]],
    standing: frozenset[str],
) -> Survey:
    """The protected paths under the writable ``roots`` now (``standing``: the placeholders), parents before
    children; missing ones get placeholders in the ``project`` and under ``$HOME``."""
    found = Survey(roots, exempt, standing)
    for root in found.roots:
        found.add_root(root, placeholders=root == project)
    for path, entry in home:
        found.add(path, entry)
    found.mounts = _unique(sorted(found.mounts, key=lambda mount: mount.path))
    return found


def _unique(mounts: list[Mount]) -> list[Mount]:
    seen: set[str] = set()
    kept = []
    for mount in mounts:
        if mount.path not in seen:
            seen.add(mount.path)
            kept.append(mount)
    return kept


def _first_missing(real: str, root: str, placeholder: str | None) -> Missing:
    """The topmost missing part of ``real`` below ``root``: a placeholder there keeps the whole path uncreatable
    (a folder, unless it is the protected path itself)."""
    parts = os.path.relpath(real, root).split(os.sep)
    current = root
    for index, part in enumerate(parts):
        current = os.path.join(current, part)
        if not os.path.lexists(current):
            return Missing(current, placeholder if index == len(parts) - 1 else FOLDER)
    return Missing(real, placeholder)


def _gitdir_named(dot_git_file: str) -> str | None:
    """The folder a ``.git`` file names (``gitdir: …``, relative to the file's folder), or None."""
    try:
        with open(dot_git_file, "rb") as handle:
            first = handle.read(4096).split(b"\n", 1)[0].decode(errors="replace").strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    named = first.removeprefix("gitdir:").strip()
    return os.path.join(os.path.dirname(dot_git_file), named) if named else None


@dataclass(frozen=True, slots=True)
class Made:
    """A placeholder agentcli made: removed later only while it is still this inode, unchanged."""

    path: str
    device: int
    inode: int
    content: str | None


def make(missing: Missing) -> Made | None:
    """Create a placeholder (exclusively: never over something that appeared meanwhile); None if it could not be
    made — the command then runs without it and the path is not protected, so the caller refuses to start."""
    path = missing.path
    try:
        if missing.placeholder is FOLDER:
            os.mkdir(path, 0o700)
        else:
            _create_file(path, missing.placeholder)
        info = os.lstat(path)
    except OSError:
        return None
    return Made(path, info.st_dev, info.st_ino, missing.placeholder)


def _create_file(path: str, content: str) -> None:
    """Written whole under a temporary name, then linked into place: no reader ever sees it half-written, and an
    existing file is never replaced (``link`` fails where ``rename`` would overwrite)."""
    temporary = f"{path}.agentcli-{secrets.token_hex(6)}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, content.encode())
        os.close(fd)
        os.link(temporary, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def remove(made: Made) -> None:
    """Remove a placeholder if it is still the one agentcli made, unchanged; otherwise it is someone's now and
    stays (a folder with something in it, a file written to, another file or folder in its place)."""
    try:
        info = os.lstat(made.path)
    except OSError:
        return
    if (info.st_dev, info.st_ino) != (made.device, made.inode):
        return
    with contextlib.suppress(OSError):
        if made.content is FOLDER:
            os.rmdir(made.path)  # fails on a folder that is no longer empty
        elif stat.S_ISREG(info.st_mode) and info.st_size == len(made.content.encode()) and _reads(made):
            os.unlink(made.path)


def _reads(made: Made) -> bool:
    assert made.content is not None
    try:
        fd = os.open(made.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return os.read(fd, len(made.content) + 1) == made.content.encode()
    finally:
        os.close(fd)
