"""The text of the reporting commands (/cost, /status, /permissions, /context, /hooks): pure functions of the
engine and the settings, so every face shows the same words."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agentcli import __version__

BAR_WIDTH = 40


def cost_report(engine: Any) -> str:
    """``/cost``: dollars and tokens so far, with how much of the prompt the cache served (reads cost a tenth)."""
    usage = engine.total_usage
    read = usage.get("cache_read_input_tokens", 0)
    prompt = usage.get("input_tokens", 0) + read + usage.get("cache_creation_input_tokens", 0)
    share = f" · {read / prompt:.0%} of the prompt read from cache" if prompt else ""
    return (
        f"Session cost ${engine.total_cost_usd:.4f} · input {usage.get('input_tokens', 0):,} · output "
        f"{usage.get('output_tokens', 0):,} · cache read {read:,} · "
        f"cache write {usage.get('cache_creation_input_tokens', 0):,} tokens{share}"
    )


def shown_path(path: str | Path, cwd: Path) -> str:
    """A file as a person would type it: relative to the project, or with ``~`` for the home folder."""
    path = str(path)
    try:
        return str(Path(path).relative_to(cwd))
    except ValueError:
        home = str(Path.home())
        return "~" + path[len(home) :] if path.startswith(home + os.sep) else path


def status_report(engine: Any, options: Any, cwd: Path) -> tuple[str, str]:
    """``/status``: a title and the session's facts, one per line."""
    config = engine.config
    lines = [
        f"Version      agentcli {__version__}",
        f"Session      {engine.session_id}",
        f"Folder       {cwd}",
        f"Model        {config.model}",
        f"Permissions  {config.permission_mode}",
        f"API key      {config.api_key_source}",
        f"Base URL     {os.environ.get('ANTHROPIC_BASE_URL') or getattr(options, 'base_url', None) or 'default'}",
    ]
    settings = getattr(options, "settings", None)
    for layer in getattr(settings, "layers", []) or []:
        lines.append(f"Settings     {shown_path(layer.path, cwd)} ({layer.source})")
    return f"agentcli {__version__} · {config.model}", "\n".join(lines)


def permissions_report(engine: Any) -> tuple[str, str]:
    """``/permissions``: the mode and every rule by behaviour, with where it came from."""
    policy = engine.config.permission_policy
    rules = list(getattr(policy, "rules", []) or [])
    lines: list[str] = []
    for behavior in ("deny", "ask", "allow"):
        chosen = [rule for rule in rules if rule.behavior == behavior]
        if chosen:
            lines.append(behavior.capitalize())
            lines += [f"  {rule}   ({rule.source})" for rule in chosen]
    if not rules:
        lines.append(
            'No rules: add "permissions": {"allow": [...], "deny": [...]} to a settings file, or answer '
            '"allow for this session" at a prompt.'
        )
    lines.append("shift+tab switches the mode: default → acceptEdits → plan → bypassPermissions.")
    return f"Permission mode: {engine.config.permission_mode}", "\n".join(lines)


def context_report(engine: Any) -> tuple[str, str]:
    """``/context``: how full the model's context is, as a bar and by part (the status bar's "ctx N%" is the same
    number)."""
    from agentcli.context.usage import context_usage

    usage = context_usage(engine)
    filled = round(min(1.0, usage.total / usage.window) * BAR_WIDTH)
    bar = "█" * filled + "░" * (BAR_WIDTH - filled)

    def row(name: str, tokens: int, note: str = "") -> str:
        return f"{name:<16}{tokens:>9,} tokens  {100 * tokens / usage.window:5.1f}%{note}"

    lines = [
        f"{bar}  {usage.percent:.0f}%",
        row("System prompt", usage.system),
        row("Tool list", usage.tools),
    ]
    if usage.memory:
        lines.append(row("Memory files", usage.memory))
    lines += [
        row("Messages", usage.messages, f"   ({len(engine.messages)} messages)"),
        row("Free", usage.free),
    ]
    if usage.auto_compact_enabled:
        lines.append(
            f"Automatic compaction at {usage.auto_compact:,} tokens "
            f"({100 * usage.auto_compact / usage.window:.0f}% of the window)."
        )
    else:
        lines.append("Automatic compaction is off for this session.")
    lines.append("/compact [focus] summarises the conversation now to free space.")
    title = f"Context: {usage.total:,} of {usage.window:,} tokens ({usage.percent:.0f}%) · {usage.model}"
    return title, "\n".join(lines)


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
            lines.append(f"  matcher {matcher} · timeout {hook.timeout_s:g} s · {shown_path(hook.source, cwd)}")
            lines.append(f"    $ {hook.label}")
            if hook.note:
                lines.append(f"    note: {hook.note}")
    if skipped:
        lines.append(
            f"{skipped} project hook(s) skipped: this folder is not trusted "
            "(restart agentcli and answer yes, or use --trust-project)."
        )
    if not hooks:
        title = "No hooks configured" + ("" if skipped else ' (add them under "hooks" in a settings file)')
    else:
        title = f"Hooks ({len(hooks)})"
    return title, "\n".join(lines)
