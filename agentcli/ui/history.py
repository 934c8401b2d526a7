"""Prompt history, persisted in the data dir so up/down and ctrl+r work across sessions.

One JSON object a line (``{"text": ..., "cwd": ...}``), appended as each prompt is sent: cheap to write, safe
to share between agentcli windows, and a torn last line is simply skipped.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from agentcli.session.redact import redact_text

MAX_ENTRIES = 1000
MAX_READ_BYTES = 4 * 1024 * 1024
FILE_NAME = "prompt_history.jsonl"


def default_history_path() -> Path:
    from agentcli.config.paths import data_dir

    return data_dir() / FILE_NAME


class PromptHistory:
    """Prompts sent before, oldest first; ``path=None`` keeps them in memory only."""

    def __init__(self, path: Path | None, cwd: Path | None = None) -> None:
        self.path = path
        self.cwd = str(cwd) if cwd is not None else None
        self._entries: list[str] | None = None

    @property
    def entries(self) -> list[str]:
        """Read on first use (up, ctrl+r, a sent prompt), so a long history file never delays the first frame."""
        if self._entries is None:
            self._entries = []
            self.load()
        return self._entries

    @entries.setter
    def entries(self, value: list[str]) -> None:
        self._entries = value

    def load(self) -> None:
        if self.path is None:
            return
        try:
            with self.path.open("rb") as handle:
                size = handle.seek(0, os.SEEK_END)
                handle.seek(max(0, size - MAX_READ_BYTES))  # the newest prompts; the first line may be cut
                raw = handle.read()
        except OSError:
            return
        entries: list[str] = []
        for line in raw.splitlines():
            try:
                item = json.loads(line)
            except (ValueError, RecursionError):  # a torn, damaged or hostile line costs that line only
                continue
            text = item.get("text") if isinstance(item, dict) else None
            if isinstance(text, str) and text.strip():
                if entries and entries[-1] == text:
                    continue
                entries.append(text)
        self.entries = entries[-MAX_ENTRIES:]

    def add(self, text: str) -> None:
        """Remember a sent prompt (repeats of the last one are kept once)."""
        if not text.strip() or (self.entries and self.entries[-1] == text):
            return
        self.entries.append(text)
        del self.entries[:-MAX_ENTRIES]
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            with os.fdopen(fd, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({"text": redact_text(text), "cwd": self.cwd}, ensure_ascii=False) + "\n")
        except (OSError, ValueError):
            pass  # history is a convenience; a read-only data dir (or unencodable text) must not break the prompt

    def search(self, needle: str, limit: int = 50) -> list[str]:
        """Entries containing ``needle`` (case-insensitive), most recent first, without repeats."""
        needle = needle.lower()
        seen: set[str] = set()
        found: list[str] = []
        for text in reversed(self.entries):
            if needle in text.lower() and text not in seen:
                seen.add(text)
                found.append(text)
                if len(found) >= limit:
                    break
        return found
