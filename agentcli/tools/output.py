"""Keeping tool output within what the model can use: the middle cut out (and said so), big results kept on disk.

The start of an output says what ran and the end says how it finished, so when something must go it is the
middle. When a result is too large to send at all, the full text goes to a file and the model gets a preview and
the path, so it can read exactly the part it needs.
"""

from __future__ import annotations

import re
from pathlib import Path

from agentcli.files.atomic import atomic_write_text
from agentcli.session.redact import redact_text

MAX_RESULT_CHARS = 50_000
"""Results longer than this are written to a file; the model gets a preview and the path."""
PREVIEW_CHARS = 4_000


def cut_notice(count: int, where: str = "of the output") -> str:
    return f"\n\n... [{count} characters cut from the middle {where}] ...\n\n"


class CappedText:
    """Accumulates text but keeps only its start and its end once it grows past ``limit`` characters."""

    def __init__(self, limit: int) -> None:
        self.limit = max(limit, 2)
        self._head_limit = self.limit // 2
        self._tail_limit = self.limit - self._head_limit
        self._head = ""
        self._tail = ""
        self.total = 0
        self._newlines = 0
        self._open_line = False

    @property
    def line_count(self) -> int:
        """Lines in everything appended, the cut middle included (the kept text alone would undercount)."""
        return self._newlines + int(self._open_line)

    def append(self, text: str) -> None:
        if not text:
            return
        self.total += len(text)
        self._newlines += text.count("\n")
        self._open_line = not text.endswith("\n")
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += text[:room]
            text = text[room:]
        if len(text) >= self._tail_limit:
            self._tail = text[-self._tail_limit :]
        elif text:
            self._tail = (self._tail + text)[-self._tail_limit :]

    @property
    def truncated(self) -> bool:
        return self.total > len(self._head) + len(self._tail)

    def tail(self, count: int) -> str:
        """The last ``count`` characters seen (for progress displays)."""
        joined = self._head + self._tail if not self.truncated else self._tail
        return joined[-count:]

    def render(self, where: str = "of the output") -> str:
        if not self.truncated:
            return self._head + self._tail
        return self._head + cut_notice(self.total - len(self._head) - len(self._tail), where) + self._tail


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def spill_path(scratch_dir: Path, tool_use_id: str, suffix: str = ".txt") -> Path:
    """Where a call's full output goes (its folder is created when the first output is saved)."""
    return scratch_dir / f"{_UNSAFE.sub('_', tool_use_id)}{suffix}"


def private_folders(path: Path) -> None:
    """Create the output's folder and its parent, readable by the user alone (tool output can hold secrets)."""
    for folder in reversed([path.parent, *path.parent.parents][:2]):
        folder.mkdir(mode=0o700, exist_ok=True, parents=True)


def limit_result(content: str, tool_use_id: str, scratch_dir: Path | None, limit: int = MAX_RESULT_CHARS) -> str:
    """``content`` when it is small enough; otherwise a preview and where the whole text was saved."""
    if len(content) <= limit:
        return content
    if scratch_dir is not None:
        try:
            path = spill_path(scratch_dir, tool_use_id)
            private_folders(path)
            atomic_write_text(path, redact_text(content), private=True)
        except OSError:
            pass
        else:
            return (
                f"<persisted-output>\nThe output is too large to show in full ({len(content)} characters). "
                f"The whole output was saved to {path}; read it in parts with Read (offset and limit) or search it "
                f"with Grep.\n\nPreview (first {PREVIEW_CHARS} characters):\n{content[:PREVIEW_CHARS]}\n"
                "...\n</persisted-output>"
            )
    head = limit // 2
    tail = limit - head
    return content[:head] + cut_notice(len(content) - head - tail, "of this result") + content[-tail:]
