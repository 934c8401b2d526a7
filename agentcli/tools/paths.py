"""Resolving the paths the model gives to tools."""

from __future__ import annotations

import os
from pathlib import Path


def resolve(path: str, base: Path) -> Path:
    """An absolute, normalised path (``~`` expanded, relative paths taken from ``base``); symlinks are kept."""
    expanded = Path(os.path.expanduser(path))
    if not expanded.is_absolute():
        expanded = base / expanded
    return Path(os.path.normpath(expanded))


def landing(path: Path) -> Path:
    """Where ``path`` leads now: every symlink resolved (a missing tail kept as given)."""
    return Path(os.path.realpath(path))


def display(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` when it is inside it, else absolute."""
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)
