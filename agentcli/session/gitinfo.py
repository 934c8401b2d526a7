"""The current git branch, read straight from ``.git/HEAD``: spawning git on every prompt costs milliseconds."""

from __future__ import annotations

from pathlib import Path

_MAX_HEAD_BYTES = 4096


def find_head(cwd: Path) -> Path | None:
    """The HEAD file of the repository containing ``cwd`` (worktrees and submodules included), if any."""
    try:
        here = cwd.resolve()
    except OSError:
        return None
    for folder in (here, *here.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_dir():
                return dot_git / "HEAD"
            if dot_git.is_file():
                # A worktree or submodule: ".git" is a file holding "gitdir: <path>".
                text = dot_git.read_text(encoding="utf-8", errors="replace")[:_MAX_HEAD_BYTES]
                if text.startswith("gitdir:"):
                    target = Path(text[len("gitdir:") :].strip())
                    return (target if target.is_absolute() else folder / target) / "HEAD"
                return None
        except OSError:
            return None
    return None


def read_branch(head: Path | None) -> str | None:
    """The branch HEAD points at; ``HEAD`` when detached (as ``git rev-parse --abbrev-ref`` says)."""
    if head is None:
        return None
    try:
        with head.open("rb") as handle:
            text = handle.read(_MAX_HEAD_BYTES).decode("utf-8", "replace").strip()
    except OSError:
        return None
    if text.startswith("ref:"):
        ref = text[4:].strip()
        return ref.removeprefix("refs/heads/") or None
    return "HEAD" if text else None


def git_branch(cwd: Path) -> str | None:
    """The branch of the repository containing ``cwd``, or None outside a repository."""
    return read_branch(find_head(cwd))
