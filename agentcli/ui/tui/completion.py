"""What the prompt can complete: slash commands after ``/`` and project paths after ``@``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

SKIP_DIRS = frozenset(
    {
        ".git",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "dist",
        "build",
        ".tox",
        ".idea",
    }
)
MAX_FILES = 5000
MAX_SHOWN = 8


def complete_command(text: str, engine: Any = None, themes: list[str] | None = None) -> list[tuple[str, str]]:
    """Completions for a prompt that starts with ``/``: (replacement text, description)."""
    if not text.startswith("/") or "\n" in text:
        return []
    name, space, argument = text[1:].partition(" ")
    if space:
        if name == "theme" and themes is not None:
            return [(f"/theme {theme}", "theme") for theme in themes if theme.startswith(argument)][:MAX_SHOWN]
        return []
    from agentcli.commands import session_registry

    return session_registry(engine).complete(text, "tui")


class PathIndex:
    """The project's files, listed once on first use (skipping VCS and dependency folders)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: list[str] | None = None

    def files(self) -> list[str]:
        if self._files is None:
            found: list[str] = []
            for folder, dirs, names in os.walk(self.root):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                relative = os.path.relpath(folder, self.root)
                prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
                if prefix:
                    found.append(prefix)
                found.extend(prefix + name for name in sorted(names))
                if len(found) >= MAX_FILES:
                    break
            self._files = found
        return self._files

    def complete(self, word: str) -> list[str]:
        """Paths for an ``@word``: prefix matches first, then paths that contain the word."""
        needle = word.removeprefix("@").lower()
        files = self.files()
        prefix = [f for f in files if f.lower().startswith(needle)]
        contains = [f for f in files if needle in f.lower() and f not in prefix]
        ranked = sorted(prefix, key=lambda f: (f.count("/"), f)) + sorted(contains, key=lambda f: (len(f), f))
        return ranked[:MAX_SHOWN]
