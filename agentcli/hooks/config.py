"""Which hooks are configured, from which file, and which of them match an event."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agentcli.config.settings import SettingsLayer

HookCallback = Callable[[dict[str, Any]], Awaitable[Any]]
"""A hook that is a function, not a command (a driving program's callback): the hook's input in, its output out."""

DEFAULT_TIMEOUT_S = 60.0
EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
)
_EXACT = re.compile(r"^[A-Za-z0-9_|, -]*$")


@dataclass(frozen=True, slots=True)
class ConfiguredHook:
    event: str
    matcher: str | None
    command: str
    timeout_s: float
    source: str
    """The settings file it came from (shown by ``/hooks`` and in summaries)."""
    callback: HookCallback | None = field(default=None, compare=False)
    """When set, the hook runs by calling this instead of starting ``command`` (which then only names it)."""
    plugin_root: str | None = None
    """For a plugin's hook: the plugin's folder, given to the command as ``CLAUDE_PLUGIN_ROOT``."""


def matcher_matches(matcher: str | None, value: str | None) -> bool:
    """Claude Code's rule: empty or ``*`` matches all; plain names (``|`` or ``,`` lists) match exactly;
    anything else is an unanchored regular expression."""
    if matcher is None or matcher.strip() in ("", "*"):
        return True
    if value is None:
        return False
    if _EXACT.match(matcher):
        names = [name.strip() for name in re.split(r"[|,]", matcher)]
        return value in names
    try:
        return re.search(matcher, value) is not None
    except re.error:
        return False


def configured_hooks(layers: list[SettingsLayer]) -> list[ConfiguredHook]:
    """Every hook of every layer, in file order (an untrusted folder's layers come without hooks)."""
    hooks: list[ConfiguredHook] = []
    for layer in layers:
        for event, matchers in layer.settings.hooks.items():
            for group in matchers:
                for hook in group.hooks:
                    hooks.append(
                        ConfiguredHook(
                            event, group.matcher, hook.command, hook.timeout or DEFAULT_TIMEOUT_S, layer.path
                        )
                    )
    return hooks


def project_hook_count(layers: list[SettingsLayer]) -> int:
    """How many hooks the project's own files (all project-scope layers) configure."""
    return sum(len(configured_hooks([layer])) for layer in layers if layer.project_scope)
