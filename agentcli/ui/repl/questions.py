"""The questions the REPL asks inline: may this tool call run, do you trust this folder, which session to resume.

Each question is printed into the scrollback with rich (so the record of what was asked and answered stays), then
answered with one key (or a line of text) through prompt-toolkit.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output
from rich.console import Console
from rich.text import Text

from agentcli.tools.permissions import PermissionAnswer, PermissionRequest
from agentcli.ui.previews import call_preview
from agentcli.ui.repl.prompts import ask_key, ask_line
from agentcli.ui.repl.render import one_line
from agentcli.ui.summaries import key_input

MAX_PREVIEW_LINES = 40
PROMPT_CHARS = 70


async def ask_permission(
    console: Console,
    request: PermissionRequest,
    *,
    cwd: Path | None = None,
    input: Input | None = None,
    output: Output | None = None,
) -> PermissionAnswer:
    """Allow once, allow for this session, or deny with a reason the model reads. Esc denies without one;
    ctrl+c raises KeyboardInterrupt (the caller denies and interrupts the turn)."""
    name = request.tool_name
    always = request.session_grant
    console.print(
        Text.assemble(
            ("  Allow ", "bold"), (name, "bold cyan"), (f"({key_input(name, request.tool_input, cwd)})?", "bold")
        )
    )
    console.print(Text(f"  {request.reason}", style="dim"))
    preview = call_preview(name, request.tool_input, cwd)
    detail = preview.lines
    if preview.kind != "command" and len(detail) > MAX_PREVIEW_LINES:
        detail = [*detail[:MAX_PREVIEW_LINES], f"… {len(detail) - MAX_PREVIEW_LINES} more lines"]
    for line in detail:
        style = (
            "green"
            if preview.kind == "diff" and line.startswith("+")
            else "red"
            if preview.kind == "diff" and line.startswith("-")
            else ""
            if preview.kind == "command"
            else "dim"
        )
        # A command is shown whole, wrapped: what is approved must be readable to its end.
        console.print(Text(f"    {line}", style=style), no_wrap=preview.kind != "command", overflow="ellipsis")
    session = f"  2. Yes, and allow {always} for this session\n" if always is not None else ""
    console.print(Text(f"  1. Yes, allow once\n{session}  3. No, and tell agentcli what to do instead (esc: just no)"))
    keys = {"1": "allow_once", "y": "allow_once", "3": "deny", "n": "deny"}
    if always is not None:
        keys["2"] = "allow_session"
    choice = await ask_key("  1/2/3 › " if always is not None else "  1/3 › ", keys, input=input, output=output)
    if choice == "allow_once":
        console.print(Text("  ⎿  Allowed once", style="dim"))
        return PermissionAnswer("allow_once")
    if choice == "allow_session":
        console.print(Text(f"  ⎿  Allowed {always} for this session", style="dim"))
        return PermissionAnswer("allow_session")
    reason = ""
    if choice == "deny":
        console.print(Text("  What should agentcli do instead? (Enter to just deny)"))
        reason = (await ask_line("  › ", input=input, output=output) or "").strip()
    console.print(Text(f"  ⎿  Denied{': ' + reason if reason else ''}", style="yellow"))
    return PermissionAnswer("deny", reason)


async def ask_trust(
    console: Console, folder: Path, hook_count: int, *, input: Input | None = None, output: Output | None = None
) -> bool:
    """Project hooks run commands from the repository, so they need the user's word first."""
    console.print(Text("Do you trust this folder?", style="bold yellow"))
    console.print(
        Text(
            f"{folder} has {hook_count} hook(s) in .agentcli/settings.json. Hooks run shell commands "
            "automatically while agentcli works. Only trust folders whose settings you have read."
        )
    )
    console.print(Text("  1. Yes, trust this folder and run its hooks\n  2. No, continue without the project's hooks"))
    try:
        choice = await ask_key("  1/2 › ", {"1": "yes", "y": "yes", "2": "no", "n": "no"}, input=input, output=output)
    except KeyboardInterrupt:
        choice = None
    trusted = choice == "yes"
    console.print(
        Text("  ⎿  Trusted; its hooks will run" if trusted else "  ⎿  Not trusted; its hooks won't run", style="dim")
    )
    return trusted


async def ask_fork(console: Console, reason: str, *, input: Input | None = None, output: Output | None = None) -> bool:
    """The session is open in another agentcli: go on in a copy of it instead?"""
    console.print(Text(reason, style="yellow"))
    console.print(Text("  1. Fork it: go on in a new session that starts with its history\n  2. Don't start"))
    try:
        choice = await ask_key("  1/2 › ", {"1": "yes", "y": "yes", "2": "no", "n": "no"}, input=input, output=output)
    except KeyboardInterrupt:
        choice = None
    return choice == "yes"


def age(seconds: float) -> str:
    """How long ago, as people say it ("5m ago"): easier to tell sessions apart than timestamps."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


def session_lines(sessions: list[Any], now: float | None = None) -> list[Text]:
    """One numbered line per session: last activity, first prompt, message count, branch."""
    now = time.time() if now is None else now
    width = len(str(len(sessions)))
    lines = []
    for number, info in enumerate(sessions, 1):
        prompt = one_line(info.first_prompt or "(no prompt)", PROMPT_CHARS)
        extra = f" · {info.message_count} messages" + (f" · {info.git_branch}" if info.git_branch else "")
        lines.append(
            Text.assemble(
                f"  {number:>{width}}. ", (f"{age(now - info.last_activity):>8}  ", "dim"), prompt, (extra, "dim")
            )
        )
    return lines


async def pick_session(
    console: Console, sessions: list[Any], *, input: Input | None = None, output: Output | None = None
) -> str | None:
    """``--resume`` without an ID: a numbered menu. Returns the chosen session ID, or None for a new session."""
    console.print(Text("Resume a session", style="bold"))
    for line in session_lines(sessions):
        console.print(line, no_wrap=True, overflow="ellipsis")
    console.print(Text(f"  Which one? (1-{len(sessions)}; Enter for a new session)"))
    while True:
        try:
            answer = await ask_line("  › ", input=input, output=output)
        except (KeyboardInterrupt, EOFError):
            answer = None
        answer = (answer or "").strip()
        if not answer:
            console.print(Text("  ⎿  Starting a new session", style="dim"))
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(sessions):
            chosen = sessions[int(answer) - 1]
            console.print(Text(f"  ⎿  Resuming {chosen.session_id}", style="dim"))
            return str(chosen.session_id)
        matches = [info for info in sessions if str(info.session_id).startswith(answer)]
        if len(matches) == 1:
            console.print(Text(f"  ⎿  Resuming {matches[0].session_id}", style="dim"))
            return str(matches[0].session_id)
        console.print(
            Text(f"  Type a number from 1 to {len(sessions)}, or press Enter for a new session.", style="yellow")
        )
