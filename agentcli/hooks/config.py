"""Which hooks are configured, from which file, and which of them match an event."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agentcli.config.settings import RUNNABLE_HOOK_TYPES, HookCommand, SettingsLayer

HookCallback = Callable[[dict[str, Any]], Awaitable[Any]]
"""A hook that is a function, not a command (a driving program's callback): the hook's input in, its output out."""

DEFAULT_TIMEOUT_S = 60.0
PROMPT_TIMEOUT_S = 30.0
EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
)
"""Events agentcli fires (``agentcli hooks run`` takes these)."""
CLAUDE_ONLY_EVENTS = (
    "PostToolBatch",
    "PermissionRequest",
    "PermissionDenied",
    "UserPromptExpansion",
    "StopFailure",
    "PostCompact",
    "Elicitation",
    "ElicitationResult",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Setup",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "PreModelSwitch",
    "PostModelSwitch",
    "MessageDisplay",
    "DirectoryAdded",
)
"""Claude Code events agentcli has no moment for: their hooks are accepted and listed with a note, never run."""
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
    kind: str = "command"
    """``command``; ``prompt`` (a small model judges, ``command`` holds the prompt); ``agent`` (the same, with
    read-only tools)."""
    model: str | None = None
    """For prompt and agent hooks: the model that judges (default: the small fast one)."""
    note: str | None = None
    """Why this configured hook never runs in agentcli (an event or hook type it lacks); listed, not dropped."""

    @property
    def label(self) -> str:
        """How ``/hooks`` and summaries name the hook."""
        return self.command if self.kind == "command" else f"{self.kind}: {self.command}"


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


def unfired_note(event: str, kind: str = "command") -> str | None:
    """Why a hook for ``event`` of type ``kind`` would not run here, or None when it runs."""
    if event in CLAUDE_ONLY_EVENTS:
        return f"agentcli does not fire {event}; this hook is kept but never runs"
    if event not in EVENTS:
        return f"{event} is not a hook event agentcli knows; this hook never runs"
    if kind not in RUNNABLE_HOOK_TYPES:
        return f'agentcli does not run "{kind}" hooks; this hook is kept but never runs'
    return None


def _configured(event: str, matcher: str | None, hook: HookCommand, source: str) -> ConfiguredHook:
    kind = hook.type
    text = hook.command if kind == "command" else hook.prompt
    if not text:  # an http or mcp_tool hook: named by where it would go
        extra = hook.model_extra or {}
        text = str(extra.get("url") or extra.get("tool") or kind)
    default_timeout = PROMPT_TIMEOUT_S if kind == "prompt" else DEFAULT_TIMEOUT_S
    return ConfiguredHook(
        event,
        matcher,
        text,
        hook.timeout or default_timeout,
        source,
        kind=kind,
        model=hook.model,
        note=unfired_note(event, kind),
    )


def configured_hooks(layers: list[SettingsLayer]) -> list[ConfiguredHook]:
    """Every hook of every layer, in file order (an untrusted folder's layers come without hooks), including those
    agentcli can't run (they carry a ``note``)."""
    hooks: list[ConfiguredHook] = []
    for layer in layers:
        for event, matchers in layer.settings.hooks.items():
            for group in matchers:
                for hook in group.hooks:
                    hooks.append(_configured(event, group.matcher, hook, layer.path))
    return hooks


def runnable(hooks: list[ConfiguredHook]) -> list[ConfiguredHook]:
    return [hook for hook in hooks if hook.note is None]


def hook_notes(hooks: list[ConfiguredHook]) -> list[str]:
    """One notice per configured hook that never runs here (for the session start)."""
    return [f"{hook.source}: {hook.event} hook {hook.label!r}: {hook.note}" for hook in hooks if hook.note]


def project_hook_count(layers: list[SettingsLayer]) -> int:
    """How many hooks the project's own files (all project-scope layers) configure."""
    return sum(len(configured_hooks([layer])) for layer in layers if layer.project_scope)
