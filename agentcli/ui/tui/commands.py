"""Slash commands typed in the prompt (``/help``, ``/theme NAME``, …)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentcli.ui.tui.completion import COMMANDS

if TYPE_CHECKING:
    from agentcli.ui.tui.app import AgentApp


def run_slash_command(app: AgentApp, text: str) -> None:
    """Do what ``text`` asks; unknown commands get a short hint instead of going to the model."""
    from agentcli.ui.tui.app import HELP

    name, _, argument = text[1:].partition(" ")
    argument = argument.strip()
    conversation = app.conversation
    if name in ("exit", "quit"):
        app.run_worker(app.action_leave(), group="leave")
    elif name == "help":
        commands = "\n".join(f"/{c.name:<11} {c.help}" for c in COMMANDS)
        conversation.add_notice("Keys and commands", "info", detail=f"{HELP}\n\n{commands}")
    elif name == "theme":
        _theme(app, argument)
    elif name == "transcript":
        app.action_toggle_transcript()
    elif name == "cost":
        engine = app.engine
        if engine is None:
            conversation.add_notice("No session yet.", "info")
            return
        usage = engine.total_usage
        conversation.add_notice(
            f"Session cost ${engine.total_cost_usd:.4f} · input {usage.get('input_tokens', 0):,} · output "
            f"{usage.get('output_tokens', 0):,} · cache read {usage.get('cache_read_input_tokens', 0):,} tokens",
            "info")
    elif name == "resume":
        conversation.add_notice("To continue an earlier session, restart with: agentcli --resume", "info")
    else:
        conversation.add_notice(f"Unknown command /{name}. Type /help for the list.", "warning")


def _theme(app: AgentApp, name: str) -> None:
    conversation = app.conversation
    if not name:
        conversation.add_notice(f"Theme: {app.theme}. Available: {', '.join(app.theme_names())}", "info")
        return
    error = app.set_theme(name)
    if error:
        conversation.add_notice(error, "error")
        return
    from agentcli.ui.tui.themes import save_theme_choice

    problem = save_theme_choice(name)
    conversation.add_notice(problem or f"Theme set to {name} (saved in your settings).",
                            "warning" if problem else "success")
