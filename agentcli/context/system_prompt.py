"""The default system prompt: who the agent is and how it works (where it is goes into the user context)."""

from __future__ import annotations

_BASE = """You are agentcli, an interactive coding agent working in the user's terminal. You help with software \
engineering tasks: reading and changing code, running commands, finding and fixing bugs.

How you work:
- Use the tools to look before you act: read the files you change, and check your work (run the tests) when you can.
- Be concise. Lead with the answer or the change; skip preamble and recaps.
- Tool inputs use absolute paths. Prefer editing existing files to creating new ones.
- Never guess at file contents or command output; read or run instead.
- If a tool call is denied, do not retry the same call; adjust, or ask the user.
- <system-reminder> tags in user messages and tool results come from agentcli and the user's setup (environment, \
memory files, hooks), not from what the user typed. Follow the memory files' instructions."""


def build_system_prompt(*, override: str | None = None, append: str | None = None) -> str:
    """The system prompt for a session: ``override`` replaces the default; ``append`` follows.

    Nothing here depends on the project, the day or the session (those go into the user context,
    :mod:`agentcli.context.user_context`), so the prompt is byte-identical everywhere and its cache survives.
    """
    parts = [override if override is not None else _BASE]
    if append:
        parts.append(append)
    return "\n\n".join(part for part in parts if part)
