"""Slash commands typed in the prompt (``/help``, ``/theme NAME``, ``/export``, …)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.files.atomic import atomic_write_text
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
        app.action_leave()
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
    elif name == "export":
        _export(app, argument)
    elif name == "hooks":
        _hooks(app)
    elif name == "resume":
        app.pick_session()
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


def _export(app: AgentApp, argument: str) -> None:
    """``/export [FILE]``: the conversation as Markdown, by default in the project folder."""
    conversation = app.conversation
    engine = app.engine
    if engine is None:
        conversation.add_notice("No session yet: nothing to export.", "info")
        return
    if not engine.messages:
        conversation.add_notice("Nothing to export yet: the conversation is empty.", "info")
        return
    from agentcli.session.export import conversation_markdown

    if argument:
        path = Path(os.path.expanduser(argument))
        path = path if path.is_absolute() else app.cwd / path
    else:
        path = app.cwd / f"agentcli-conversation-{str(engine.session_id)[:8]}.md"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, conversation_markdown(engine.messages))
    except OSError as exc:
        conversation.add_notice(f"Could not export the conversation to {path}: {exc.strerror or exc}", "error")
        return
    count = len(engine.messages)
    conversation.add_notice(f"Exported the conversation ({count} message{'s' if count != 1 else ''}) to {path}",
                            "success")


def _shown_path(path: str, cwd: Path) -> str:
    """A settings file as a person would type it: relative to the project, or with ``~`` for the home folder."""
    try:
        return str(Path(path).relative_to(cwd))
    except ValueError:
        home = str(Path.home())
        return "~" + path[len(home):] if path.startswith(home + os.sep) else path


def hooks_report(settings: Any, cwd: Path) -> tuple[str, str]:
    """``/hooks``: a title and the configured hooks by event, each with matcher, command, timeout and file."""
    from agentcli.hooks.config import configured_hooks, project_hook_count

    hooks = configured_hooks(settings.layers)
    skipped = 0 if settings.trusted else project_hook_count(settings.source_layers)
    lines: list[str] = []
    for event in dict.fromkeys(hook.event for hook in hooks):
        lines.append(event)
        for hook in (h for h in hooks if h.event == event):
            matcher = hook.matcher if hook.matcher not in (None, "") else "*"
            lines.append(f"  matcher {matcher} · timeout {hook.timeout_s:g} s · {_shown_path(hook.source, cwd)}")
            lines.append(f"    $ {hook.command}")
    if skipped:
        lines.append(f"{skipped} project hook(s) skipped: this folder is not trusted "
                     "(restart agentcli and answer yes, or use --trust-project).")
    if not hooks:
        title = "No hooks configured" + ("" if skipped else " (add them under \"hooks\" in a settings file)")
    else:
        title = f"Hooks ({len(hooks)})"
    return title, "\n".join(lines)


def _hooks(app: AgentApp) -> None:
    options = getattr(app.setup, "options", None)
    settings = getattr(options, "settings", None)
    if settings is None:
        app.conversation.add_notice("No session yet: the settings are still loading.", "info")
        return
    title, detail = hooks_report(settings, app.cwd)
    app.conversation.add_notice(title, "info", detail=detail)
