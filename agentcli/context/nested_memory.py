"""Memory files in the project's sub-folders, loaded when the agent first works below them.

A session starts with the memory files from the filesystem root down to the project (the user context). A
sub-folder's own ``AGENTS.md``/``CLAUDE.md`` (``src/AGENTS.md``: "this package uses …") only matters once the
agent reads or edits a file there, so it arrives then, as a ``<system-reminder>`` attached to that tool's result,
once per file per session (as in Claude Code).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli.context.memory import Denied, MemoryFile, folder_memory_paths, load_memory_file, memory_section

FILE_INPUTS = ("file_path", "notebook_path")
"""The tool inputs that name the file a tool reads or edits (Read, Edit, Write, NotebookEdit…)."""


@dataclass
class NestedMemory:
    """Which memory files the session has loaded, so each is sent once."""

    loaded: set[Path] = field(default_factory=set)
    """Resolved paths: the session's starting memory files and every nested one sent since."""
    trusted: bool = False
    """Whether imports may reach outside the importing file's folder (the project is trusted)."""
    denied: Denied | None = None
    """``Read(…)`` deny rules: files they cover are never sent."""
    sent: list[MemoryFile] = field(default_factory=list)
    """The nested files sent so far, as sent: a compaction puts them back (they are not in the user context)."""

    def fresh(self) -> NestedMemory:
        """A copy for a sub-agent: it knows what the session started with, and finds nested files on its own."""
        return NestedMemory(set(self.loaded), self.trusted, self.denied)

    def keep_only(self, kept: Callable[[MemoryFile], bool]) -> None:
        """After a compaction: the nested files it did not put back count as not sent, so they come again the next
        time the model works in their folder."""
        dropped = [item for item in self.sent if not kept(item)]
        self.sent = [item for item in self.sent if kept(item)]
        self.loaded.difference_update(item.path.resolve() for item in dropped)

    def reminder_for(self, tool_input: dict[str, Any], project_dir: Path) -> str | None:
        """The memory files not yet sent for the folders between the project and the file ``tool_input`` names,
        outermost first, as one reminder; None when there are none (or the file is outside the project)."""
        named = next((tool_input[key] for key in FILE_INPUTS if isinstance(tool_input.get(key), str)), None)
        if not named:
            return None
        root = project_dir.resolve()
        try:
            target = (root / Path(named).expanduser()).resolve()
            folder = target.parent.relative_to(root)
        except (OSError, ValueError, RuntimeError):
            return None
        files = []
        current = root
        for part in folder.parts:
            current = current / part
            for path in folder_memory_paths(current):
                confine_to = None if self.trusted else current
                files += load_memory_file(path, self.loaded, confine_to=confine_to, denied=self.denied)
        self.sent += files
        section = memory_section(files, nested=True)
        return f"<system-reminder>\n{section}\n</system-reminder>" if section else None


def with_reminder(content: str | list[dict[str, Any]], reminder: str) -> list[dict[str, Any]]:
    """A tool result's content with ``reminder`` after it as a text block of its own."""
    if not isinstance(content, str):
        return [*content, {"type": "text", "text": reminder}]
    lead = [{"type": "text", "text": content}] if content else []  # the API refuses empty text blocks
    return [*lead, {"type": "text", "text": reminder}]
