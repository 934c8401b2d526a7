"""The default system prompt: who the agent is, how it works, and where it is."""

from __future__ import annotations

import datetime as _dt
import platform
from pathlib import Path

from agentcli.context.memory import memory_prompt

_BASE = """You are agentcli, an interactive coding agent working in the user's terminal. You help with software \
engineering tasks: reading and changing code, running commands, finding and fixing bugs.

How you work:
- Use the tools to look before you act: read the files you change, and check your work (run the tests) when you can.
- Be concise. Lead with the answer or the change; skip preamble and recaps.
- Tool inputs use absolute paths. Prefer editing existing files to creating new ones.
- Never guess at file contents or command output; read or run instead.
- If a tool call is denied, do not retry the same call; adjust, or ask the user."""


def build_system_prompt(
    project_dir: Path,
    *,
    override: str | None = None,
    append: str | None = None,
    model: str | None = None,
) -> str:
    """The system prompt for a session: ``override`` replaces the default; the memory files and ``append`` follow."""
    parts = [override if override is not None else _BASE]
    if override is None:
        today = _dt.date.today().isoformat()
        parts.append(
            "<env>\n"
            f"Working directory: {project_dir}\n"
            f"Is a git repository: {(project_dir / '.git').exists()}\n"
            f"Platform: {platform.system().lower()}\n"
            f"Today's date: {today}\n" + (f"Model: {model}\n" if model else "") + "</env>"
        )
    memory = memory_prompt(project_dir)
    if memory:
        parts.append(memory)
    if append:
        parts.append(append)
    return "\n\n".join(part for part in parts if part)
