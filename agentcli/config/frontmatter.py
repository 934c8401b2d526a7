"""Markdown files with YAML front matter (agents, skills, commands): Claude Code's format, read the same way."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class MarkdownDocument:
    path: Path
    meta: dict[str, Any]
    body: str


class FrontMatterError(ValueError):
    """A file whose front matter is not a YAML mapping; the message names the file."""


def read_markdown(path: Path) -> MarkdownDocument:
    """Split ``---``-fenced YAML front matter from the body. A file without front matter has empty ``meta``."""
    import yaml

    text = path.read_text(encoding="utf-8").lstrip("\ufeff")
    if not text.startswith("---"):
        return MarkdownDocument(path, {}, text)
    head, separator, body = text[3:].partition("\n---")
    if not separator:
        return MarkdownDocument(path, {}, text)
    try:
        meta = yaml.safe_load(head) or {}
    except yaml.YAMLError as exc:
        raise FrontMatterError(f"{path}: front matter is not valid YAML: {exc}") from None
    if not isinstance(meta, dict):
        raise FrontMatterError(f"{path}: front matter must be a mapping of keys to values")
    return MarkdownDocument(path, meta, body.partition("\n")[2].strip("\n"))


def name_list(value: Any) -> list[str] | None:
    """``tools: Read, Grep`` or a YAML list; None when absent (meaning every tool)."""
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else [str(item) for item in value]
    return [item.strip() for item in items if item.strip()]
