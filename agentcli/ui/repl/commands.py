"""Slash commands typed at the REPL's prompt (``/help``, ``/export``, ``/hooks``, ``/cost``, ``/clear``, ``/exit``)."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from agentcli.files.atomic import atomic_write_text
from agentcli.ui.repl.prompts import COMMANDS, KEYS_HELP

if TYPE_CHECKING:
    from agentcli.ui.repl.app import Repl


async def run_command(repl: Repl, text: str) -> bool:
    """Do what ``text`` asks; False means leave. Unknown commands get a hint instead of going to the model."""
    name, _, argument = text[1:].partition(" ")
    argument = argument.strip()
    view = repl.view
    if name in ("exit", "quit"):
        return False
    if name == "help":
        commands = "\n".join(f"  /{command.name:<8} {command.help}" for command in COMMANDS)
        view.print(Text(f"{KEYS_HELP}\n\n{commands}"), gap=True)
    elif name == "export":
        export(repl, argument)
    elif name == "hooks":
        show_hooks(repl)
    elif name == "cost":
        engine = repl.engine
        usage = engine.total_usage
        view.notice(f"Session cost ${engine.total_cost_usd:.4f} · input {usage.get('input_tokens', 0):,} · output "
                    f"{usage.get('output_tokens', 0):,} · cache read {usage.get('cache_read_input_tokens', 0):,} "
                    "tokens", style="")
    elif name == "clear":
        return await repl.new_session()
    else:
        view.warning(f"Unknown command /{name}. Type /help for the list.")
    return True


def export(repl: Repl, argument: str) -> None:
    """Write the conversation as Markdown, to FILE or a timestamped file in the project folder."""
    from agentcli.session import conversation_markdown

    messages = repl.engine.messages
    if not messages:
        repl.view.notice("Nothing to export yet.")
        return
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    target = Path(argument).expanduser() if argument else Path(f"agentcli-conversation-{stamp}.md")
    if not target.is_absolute():
        target = repl.cwd / target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, conversation_markdown(messages))
    except OSError as exc:
        repl.view.error(f"Could not export to {target}: {exc.strerror or exc}")
        return
    repl.view.notice(f"Exported {len(messages)} messages to {target}", style="green")


def show_hooks(repl: Repl) -> None:
    """The hooks of every settings file by event, with the file each comes from and whether it runs."""
    from agentcli.hooks.config import EVENTS, configured_hooks

    settings = repl.setup.options.settings
    hooks = configured_hooks(settings.source_layers)
    view = repl.view
    if not hooks:
        view.notice("No hooks configured.")
        return
    trusted = settings.trusted
    project_files = {layer.path for layer in settings.source_layers if layer.project_scope}
    lines = Text()
    for event in EVENTS:
        found = [hook for hook in hooks if hook.event == event]
        if not found:
            continue
        lines.append(f"{event}\n", style="bold")
        for hook in found:
            lines.append(f"  [{hook.matcher or '*'}] {hook.command}")
            lines.append(f"  (timeout {hook.timeout_s:g} s, {hook.source})", style="dim")
            if hook.source in project_files and not trusted:
                lines.append("  not running: this folder is not trusted", style="yellow")
            lines.append("\n")
    lines.rstrip()
    view.print(lines, gap=True)
