"""Memory files: the instructions users keep for the agent (``AGENTS.md``, and ``CLAUDE.md`` and a personal,
uncommitted ``CLAUDE.local.md`` where present, as Claude Code reads them).

Read once per session: the user's own (``~/.claude/CLAUDE.md``, ``<config>/AGENTS.md``), then every folder from
the filesystem root down to the project, so the most specific instructions come last. A file may pull in others
with ``@path`` lines (relative to the file, ``~`` for the home folder), up to :data:`MAX_IMPORT_DEPTH` levels.
They reach the model as user context (:mod:`agentcli.context.user_context`), never in the system prompt, which
stays byte-identical across projects and sessions (prompt caching).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from agentcli.config.paths import config_dir

NAMES = ("AGENTS.md", "CLAUDE.md", "CLAUDE.local.md")
MAX_CHARS_PER_FILE = 40_000
MAX_IMPORT_DEPTH = 4
"""How deep ``@path`` imports nest: a memory file's imports are level 1, theirs level 2, and so on."""

_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)")
_CODE_SPAN = re.compile(r"(`+).*?\1")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_TRAILING = ".,;:!?)]}'\""


@dataclass(frozen=True, slots=True)
class MemoryFile:
    path: Path
    text: str
    truncated: bool
    imported_by: Path | None = None
    """The memory file whose ``@path`` line brought this one in (None for a file found by its name)."""


def user_memory_paths() -> list[Path]:
    """The user's own memory files, for every project: Claude Code's, then agentcli's."""
    return [Path.home() / ".claude" / "CLAUDE.md", config_dir() / "AGENTS.md"]


def folder_memory_paths(folder: Path) -> list[Path]:
    """The memory files a folder may hold, in the order they are read."""
    return [folder / name for name in NAMES]


Denied = Callable[[Path], bool]
"""Whether a ``Read(…)`` deny rule covers a file: such a file never reaches the model, memory or not."""


def memory_files(project_dir: Path, *, trusted: bool = False, denied: Denied | None = None) -> list[MemoryFile]:
    """Every memory file that applies to ``project_dir``, outermost first, each followed by its imports.

    Unreadable, empty and ``denied`` files are skipped. Imports of a folder's memory file stay inside that folder
    unless the project is ``trusted`` (a cloned repository must not pull the user's private files into the
    prompt); the user's own files may import from anywhere.
    """
    resolved = project_dir.resolve()
    seen: set[Path] = set()
    found: list[MemoryFile] = []
    for path in user_memory_paths():
        found += load_memory_file(path, seen, confine_to=None, denied=denied)
    for folder in reversed([resolved, *resolved.parents]):
        for path in folder_memory_paths(folder):
            found += load_memory_file(path, seen, confine_to=None if trusted else folder, denied=denied)
    return found


def load_memory_file(
    path: Path, seen: set[Path], *, confine_to: Path | None, denied: Denied | None = None
) -> list[MemoryFile]:
    """``path`` and what it imports (depth first, each after the file naming it); files in ``seen`` are skipped
    and every file loaded is added to it, which also cuts import cycles."""
    return _load(path, seen, (confine_to, denied), depth=0, imported_by=None)


def _load(
    path: Path, seen: set[Path], limits: tuple[Path | None, Denied | None], depth: int, imported_by: Path | None
) -> list[MemoryFile]:
    confine_to, denied = limits
    try:
        real = path.resolve()
        if real in seen or not real.is_file():
            return []
        if confine_to is not None and not real.is_relative_to(confine_to.resolve()):
            return []
        if denied is not None and denied(real):
            return []
        seen.add(real)
        with real.open("rb") as handle:  # bounded: a huge file costs no more than what is kept
            data = handle.read(MAX_CHARS_PER_FILE * 4 + 1)
    except (OSError, ValueError):
        return []
    if b"\0" in data[:1024]:
        return []  # a binary file named by mistake is not instructions
    text = data.decode("utf-8", errors="replace")  # a stray byte costs one character, not the instructions
    if not text.strip():
        return []
    found = [MemoryFile(path, text[:MAX_CHARS_PER_FILE], len(text) > MAX_CHARS_PER_FILE, imported_by)]
    if depth < MAX_IMPORT_DEPTH:
        for target in import_targets(text[:MAX_CHARS_PER_FILE], path.parent):
            found += _load(target, seen, limits, depth + 1, path)
    return found


def import_targets(text: str, base: Path) -> list[Path]:
    """The files ``@path`` mentions in ``text`` name, outside code blocks and code spans; relative paths are
    relative to ``base`` and ``~`` is the home folder. Email addresses and ``@decorators`` in prose are not paths
    unless such a file exists, which :func:`_load` checks."""
    targets: list[Path] = []
    for line in prose_lines(text):
        for match in _IMPORT.finditer(_CODE_SPAN.sub("", line)):
            raw = match.group(1).replace("\\ ", " ").rstrip(_TRAILING)
            if not raw or raw.startswith("@") or raw == "/":
                continue
            path = Path(os.path.expanduser(raw))
            targets.append(path if path.is_absolute() else base / path)
    return targets


def prose_lines(text: str) -> Iterable[str]:
    """The lines of Markdown ``text`` that are not inside a fenced code block."""
    fence: str | None = None
    for line in text.splitlines():
        opened = _FENCE.match(line)
        if fence is None:
            if opened:
                fence = opened.group(1)
                continue
            yield line
        elif opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
            fence = None


def memory_section(files: list[MemoryFile], *, nested: bool = False) -> str | None:
    """The memory files as one block of instructions for the model, or None when there are none."""
    if not files:
        return None
    if nested:
        intro = (
            "Instructions from the memory files of the folder you just worked in follow. They apply to files "
            "below that folder and take precedence over more general ones."
        )
    else:
        intro = (
            "Instructions from the user's memory files follow. They take precedence over the defaults of the "
            "system prompt; later files are more specific than earlier ones."
        )
    parts = [intro]
    for item in files:
        notes = []
        if item.imported_by is not None:
            notes.append(f' imported_by="{item.imported_by}"')
        if item.truncated:
            notes.append(" (cut: the file is longer)")
        parts.append(f'<memory path="{item.path}"{"".join(notes)}>\n{item.text.strip()}\n</memory>')
    return "\n\n".join(parts)
