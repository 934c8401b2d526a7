"""Whether a git command only reads: a known read-only subcommand, no option that writes or runs a program, and a
repository whose config names no program that git would start (fsmonitor, textconv, external diff, filters…).

A repository's ``.git/config`` comes with the folder, so a read-only judgement that ignored it would let
``git status`` run whatever ``core.fsmonitor`` names.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from agentcli.tools.globs import has_magic

READ_ONLY_SUBCOMMANDS = {
    "status",
    "log",
    "show",
    "diff",
    "blame",
    "ls-files",
    "ls-tree",
    "rev-parse",
    "describe",
    "shortlog",
    "grep",
    "show-ref",
    "merge-base",
    "count-objects",
    "cat-file",
    "rev-list",
    "whatchanged",
    "annotate",
    "name-rev",
    "check-ignore",
    "version",
    "help",
}
_BAD_OPTIONS = (
    "--output",
    "--ext-diff",
    "--textconv",
    "--open-files-in-pager",
    "--exec",
    "--upload-pack",
    "--receive-pack",
    "--show-signature",
    "--contents",
    "--no-index",
    "--config-env",
)
_PROGRAM_KEYS = re.compile(
    r"^\s*(fsmonitor|hookspath|pager|editor|askpass|sshcommand|gitproxy|textconv|external|command|process|clean|"
    r"smudge|program|helper|path|worktree|attributesfile|excludesfile|browser|viewer|cmd|showsignature)\s*(=|$)",
    re.IGNORECASE | re.MULTILINE,
)
_INCLUDE_SECTION = re.compile(r"^\s*\[\s*include", re.IGNORECASE | re.MULTILINE)
_LISTING = {
    "-l",
    "--list",
    "-a",
    "--all",
    "-r",
    "--remotes",
    "-v",
    "-vv",
    "--verbose",
    "--show-current",
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--points-at",
    "--column",
    "--no-column",
}


def _git_dirs(start: Path) -> list[Path]:
    """The git folders whose config applies in ``start``: the repository's (following a ``.git`` file, or the
    folder itself where it is a bare repository) and, for a linked worktree, the common one."""
    for folder in (start, *start.parents):
        marker = folder / ".git"
        if marker.is_dir():
            return [marker]
        if marker.is_file():
            try:
                text = marker.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return []
            if not text.startswith("gitdir:"):
                return []
            git_dir = (folder / text.split(":", 1)[1].strip()).resolve()
            dirs = [git_dir]
            try:
                common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
                dirs.append((git_dir / common).resolve())
            except OSError:
                pass
            return dirs
        if _is_git_dir(folder):
            return [folder]  # a bare repository, which a project can carry as an ordinary folder
    return []


def _is_git_dir(folder: Path) -> bool:
    """What git itself takes for a repository when it looks for one: HEAD, objects/ and refs/ side by side."""
    return (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir()


def config_runs_programs(cwd: Path) -> bool:
    """Whether the repository's own config (not the user's), or a submodule's, names a program or pulls in another
    file: ``git status`` and ``git diff`` look into submodules with their own config."""
    for git_dir in _git_dirs(cwd):
        for folder in (git_dir, *_submodule_git_dirs(git_dir)):
            for name in ("config", "config.worktree"):
                try:
                    text = (folder / name).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                if _PROGRAM_KEYS.search(text) or _INCLUDE_SECTION.search(text):
                    return True
    return False


def _submodule_git_dirs(git_dir: Path) -> list[Path]:
    """Submodules' git folders: under ``.git/modules`` (nested too), and those in their own folder that
    ``.gitmodules`` names (the older layout)."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(git_dir / "modules"):
        dirs[:] = [name for name in dirs if name not in ("objects", "refs", "logs", "hooks", "info")]
        if "config" in files:
            found.append(Path(folder))
    try:
        listed = (git_dir.parent / ".gitmodules").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return found
    for match in re.finditer(r"^\s*path\s*=\s*(.+?)\s*$", listed, re.MULTILINE):
        marker = git_dir.parent / match.group(1) / ".git"
        if marker.is_dir():
            found.append(marker)
    return found


def git_is_read_only(args: list[str], cwd: Path | None) -> list[str] | None:
    """The words of a read-only git command that may be paths (checked by the caller), or None. ``cwd`` None judges
    the command alone (whether it may run beside others), without the repository's config."""
    while args and args[0] in ("--no-pager", "--no-optional-locks", "-P"):
        args = args[1:]
    if not args or args[0].startswith("-"):
        return None  # other global options (-c, -C, --git-dir…) can run programs or move the repository
    sub, rest = args[0], args[1:]
    if any(arg.startswith(_BAD_OPTIONS) or arg.startswith("-O") or "%G" in arg for arg in rest):
        return None  # (a %G… format checks signatures: it runs gpg, as --show-signature does)
    if not _subcommand_reads(sub, rest):
        return None
    if cwd is not None and config_runs_programs(cwd):
        return None
    # An option's value may name a file git reads (--ignore-revs-file=, --exclude-from=, --relative=): checked as
    # a path too; one the shell would expand (braces, globs) is not judged at all.
    values = [arg.split("=", 1)[1] for arg in rest if arg.startswith("-") and "=" in arg]
    if any(has_magic(value) for value in values):
        return None
    return [arg for arg in rest if not arg.startswith("-")] + values


def _subcommand_reads(sub: str, rest: list[str]) -> bool:
    if sub in READ_ONLY_SUBCOMMANDS:
        return True
    if sub == "branch":
        flags = [a for a in rest if a.startswith("-")]
        if not all(a in _LISTING or a.startswith(("--sort=", "--format=", "--color")) for a in flags):
            return False
        positional = [a for a in rest if not a.startswith("-")]
        return not positional or any(
            f in rest for f in ("-l", "--list", "--contains", "--merged", "--no-merged", "--points-at", "--no-contains")
        )
    if sub == "tag":
        return not rest or rest[0] in ("-l", "--list")
    if sub == "remote":
        return not rest or rest[0] in ("-v", "--verbose") or (rest[0] == "get-url" and len(rest) >= 2)
    if sub == "stash":
        return bool(rest) and rest[0] in ("list", "show")
    if sub == "config":
        return bool(rest) and rest[0] in ("--get", "--get-all", "--get-regexp")
    if sub == "reflog":
        return not rest or rest[0] == "show" or rest[0].startswith("-")
    return False
