"""User context: what the model should know about this user, project and day, sent with the first user message.

Claude Code sends the memory files and the date as a ``<system-reminder>`` at the head of the conversation rather
than in the system prompt. We do the same, for the same reason: the system prompt (and the tool list) then stay
byte-identical across projects, days and the whole session, so the cached prefix survives. The text is built once
per session (:func:`build_user_context`) and stored in the first user message, so every later request repeats it
byte for byte; a resumed session already has it and does not get it twice. Compaction, which starts a new prefix,
puts it back with :func:`prepend_user_context`.
"""

from __future__ import annotations

import datetime as _dt
import platform
from pathlib import Path
from typing import Any

from agentcli.context.memory import MemoryFile, memory_files, memory_section

Message = dict[str, Any]
HEAD = "As you answer the user's questions, you can use the following context:"
"""The first line of the user context; how a stored message is recognised as carrying it."""
_OPEN = "<system-reminder>\n"
_CLOSE = "\n</system-reminder>"


def build_user_context(
    project_dir: Path,
    *,
    model: str | None = None,
    include_env: bool = True,
    trusted: bool = False,
    files: list[MemoryFile] | None = None,
) -> str | None:
    """The session's user context: the environment (folder, git, platform, date, model) and the memory files.

    ``include_env`` False leaves the environment out (``--system-prompt`` replaces the default instructions and
    the environment note with it). ``files`` are the memory files when the caller already read them. None when
    there is nothing to say.
    """
    sections: list[str] = []
    if include_env:
        sections.append(
            "# Environment\n"
            f"Working directory: {project_dir}\n"
            f"Is a git repository: {(project_dir / '.git').exists()}\n"
            f"Platform: {platform.system().lower()}\n"
            f"Today's date: {_dt.date.today().isoformat()}" + (f"\nModel: {model}" if model else "")
        )
    memory = memory_section(files if files is not None else memory_files(project_dir, trusted=trusted))
    if memory:
        sections.append("# Memory files\n" + memory)
    if not sections:
        return None
    return "\n\n".join([HEAD, *sections])


def user_context_block(user_context: str) -> dict[str, Any]:
    """The text block that carries the user context at the head of a user message."""
    return {"type": "text", "text": f"{_OPEN}{user_context}{_CLOSE}"}


def is_user_context_block(block: object) -> bool:
    return (
        isinstance(block, dict) and block.get("type") == "text" and str(block.get("text", "")).startswith(_OPEN + HEAD)
    )


def has_user_context(messages: list[Message]) -> bool:
    """Whether a history already carries the user context (a resumed or compacted session)."""
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, list) and any(map(is_user_context_block, content)):
            return True
    return False


def with_user_context(message: Message, user_context: str | None) -> Message:
    """A copy of user ``message`` with the user context as its first content block (``message`` unchanged)."""
    if not user_context:
        return message
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    return {**message, "content": [user_context_block(user_context), *blocks]}


def prepend_user_context(messages: list[Message], user_context: str | None) -> list[Message]:
    """``messages`` with the user context at their head: in the first message when it is the user's (and has no
    tool results, which must lead their message), else as a message of its own. The input list is unchanged."""
    if not user_context or has_user_context(messages):
        return list(messages)
    first = messages[0] if messages else None
    content = first.get("content") if first is not None else None
    answers_tools = isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )
    if first is not None and first.get("role") == "user" and not answers_tools:
        return [with_user_context(first, user_context), *messages[1:]]
    return [{"role": "user", "content": [user_context_block(user_context)]}, *messages]
