"""Settings files: user, project, local, then ``--settings``; later layers override earlier ones.

Keys follow Claude Code's settings where they overlap (``hooks``, ``permissions``, ``model``, ``env``), so a
settings file written for it works here. Claude Code's own files (``~/.claude/settings.json``,
``.claude/settings.json``, ``.claude/settings.local.json``) are read first, under agentcli's, so a team's existing
setup applies as it is (``claudeCompat: false`` turns that off). A broken agentcli file is reported with its path,
line and key; faces decide whether to go on without it (interactive) or stop (``-p``). A Claude Code file is never
fatal: what agentcli can't use in it is left out with a notice.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from agentcli.config.inputs import InputFileError, parse_json, read_input
from agentcli.config.modes import PermissionMode
from agentcli.config.paths import claude_dir, config_dir
from agentcli.config.trust import is_trusted, untrusted_notice, withhold_untrusted

Source = Literal["userSettings", "projectSettings", "localSettings", "flagSettings"]
PROJECT_SCOPE: frozenset[str] = frozenset({"projectSettings", "localSettings"})
"""Sources that live in the project folder: filtered by :mod:`agentcli.config.trust` until the folder is trusted."""


HookType = Literal["command", "prompt", "agent", "http", "mcp_tool"]
RUNNABLE_HOOK_TYPES: frozenset[str] = frozenset({"command", "prompt", "agent"})
"""Hook types agentcli runs; the others are accepted and listed with a note."""


class HookCommand(BaseModel):
    """One hook: a shell ``command``, or a ``prompt`` a small model judges (``agent``: with read-only tools)."""

    model_config = ConfigDict(extra="allow")

    type: HookType = "command"
    command: str | None = Field(default=None, min_length=1)
    prompt: str | None = Field(default=None, min_length=1)
    model: str | None = None
    timeout: float | None = Field(default=None, gt=0)
    """Seconds; default 60 (30 for prompt hooks)."""

    @model_validator(mode="after")
    def _has_what_it_runs(self) -> HookCommand:
        if self.type == "command" and not self.command:
            raise ValueError("a command hook needs a non-empty 'command'")
        if self.type in ("prompt", "agent") and not self.prompt:
            raise ValueError(f"a {self.type} hook needs a non-empty 'prompt'")
        return self


class HookMatcher(BaseModel):
    model_config = ConfigDict(extra="allow")

    matcher: str | None = None
    hooks: list[HookCommand] = Field(default_factory=list)


class PermissionsSettings(BaseModel):
    model_config = ConfigDict(extra="allow")

    allow: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)
    ask: list[str] = Field(default_factory=list)
    defaultMode: PermissionMode | None = None


class SandboxSettings(BaseModel):
    """``sandbox``: how Bash commands are contained (see :mod:`agentcli.tools.sandbox`)."""

    model_config = ConfigDict(extra="allow")

    enabled: bool = True
    mode: Literal["auto-allow", "ask"] = "ask"
    """ask: the permission rules decide as without a sandbox; auto-allow: a command the sandbox contains runs
    without asking."""
    writablePaths: list[str] = Field(default_factory=list)
    network: bool | dict[str, Any] = False
    """True: commands may use the network. An object (Claude Code's proxy settings) counts as no network."""
    autoAllowBashIfSandboxed: bool | None = None
    """Claude Code's spelling of ``mode``: true means ``auto-allow``."""
    hooks: bool = False
    """True: hook commands run inside the sandbox too, under the same filesystem and network rules."""


class Settings(BaseModel):
    """One settings file, or the merge of all of them. Unknown keys are kept and ignored."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    model: str | None = None
    fallbackModel: str | list[str] | None = None
    env: dict[str, str] = Field(default_factory=dict)
    permissions: PermissionsSettings = Field(default_factory=PermissionsSettings)
    hooks: dict[str, list[HookMatcher]] = Field(default_factory=dict)
    maxRetries: int | None = Field(default=None, ge=0)
    streamIdleTimeoutMs: int | None = Field(default=None, gt=0)
    stopHookBlockCap: int | None = Field(default=None, ge=1)
    theme: str | None = None
    autoCompact: bool = True
    """Summarise the conversation automatically when it nears the context window (``/compact`` works either way)."""
    autoCompactPercent: float | None = Field(default=None, ge=1, le=100)
    """Where automatic compaction starts, as a percentage of the usable window (the default is about 93 %)."""
    contextWindow: int | None = Field(default=None, ge=1_000)
    """The model's context window in tokens, for models the built-in table does not know."""
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    claudeCompat: bool | None = None
    """False: ignore Claude Code's settings files (only counts in agentcli's own files and ``--settings``)."""


class SettingsError(Exception):
    """A settings file that can't be used; ``str()`` names the file, the line and the key."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


@dataclass
class SettingsLayer:
    """One file's settings, validated, with where they came from."""

    source: Source
    path: str
    data: dict[str, Any]
    settings: Settings
    claude: bool = False
    """One of Claude Code's files (``~/.claude``, ``.claude/``): same trust rules, lower precedence."""

    @property
    def project_scope(self) -> bool:
        return self.source in PROJECT_SCOPE


@dataclass
class LoadedSettings:
    layers: list[SettingsLayer] = field(default_factory=list)
    """The layers as they count: in an untrusted folder, project-scope layers without what they may not do."""
    errors: list[SettingsError] = field(default_factory=list)
    merged: Settings = field(default_factory=Settings)
    trusted: bool = True
    source_layers: list[SettingsLayer] = field(default_factory=list)
    """The layers as read from their files (for ``/hooks`` and the trust question)."""
    withheld: dict[str, list[str]] = field(default_factory=dict)
    """Per file (relative to the project): what an untrusted folder's settings were denied (``["2 hooks"]``)."""
    notices: list[str] = field(default_factory=list)
    """One-line notes for the user: what of Claude Code's files was left out and why."""

    def layer_sources(self) -> list[Source]:
        return [layer.source for layer in self.layers]

    own_layers: list[SettingsLayer] = field(default_factory=list)
    """agentcli's own files as read (``source_layers`` adds Claude Code's where they count)."""
    claude: tuple[list[SettingsLayer], list[str]] = field(default_factory=lambda: ([], []))
    """Claude Code's files as read, and the notices about what of them agentcli left out."""
    project_dir: Path | None = None

    def trusting(self) -> LoadedSettings:
        """The same files once the folder is trusted (the user just said yes, or ``--trust-project``)."""
        return _combine(
            self.own_layers, errors=list(self.errors), trusted=True, project_dir=self.project_dir, claude=self.claude
        )

    def untrusted_notice(self) -> str | None:
        return untrusted_notice(self.withheld)


def claude_settings_paths(project_dir: Path) -> list[tuple[Source, Path]]:
    """Claude Code's settings files, lowest precedence first (all below agentcli's own)."""
    return [
        ("userSettings", claude_dir() / "settings.json"),
        ("projectSettings", project_dir / ".claude" / "settings.json"),
        ("localSettings", project_dir / ".claude" / "settings.local.json"),
    ]


def settings_paths(project_dir: Path) -> list[tuple[Source, Path]]:
    """agentcli's settings files, lowest precedence first."""
    return [
        ("userSettings", config_dir() / "settings.json"),
        ("projectSettings", project_dir / ".agentcli" / "settings.json"),
        ("localSettings", project_dir / ".agentcli" / "settings.local.json"),
    ]


def _line_of_key(text: str, key: str) -> int | None:
    needle = json.dumps(key)
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number
    return None


def parse_settings(text: str, path: str, source: Source) -> SettingsLayer:
    """Validate one file's text; raises :class:`SettingsError` with the line and key of the first problem."""
    try:
        data = parse_json(text, path) if text.strip() else {}
    except InputFileError as exc:
        raise SettingsError(str(exc), path) from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: settings must be a JSON object, not {type(data).__name__}", path)
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        issue = exc.errors()[0]
        key = ".".join(str(part) for part in issue["loc"])
        top = next((str(part) for part in reversed(issue["loc"]) if isinstance(part, str)), key)
        line = _line_of_key(text, top)
        where = f"{path}:{line}" if line else path
        more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
        raise SettingsError(f"{where}: {key}: {issue['msg']}{more}", path) from None
    return SettingsLayer(source, path, data, settings)


MAX_DROPPED_KEYS = 50


def parse_claude_settings(text: str, path: str, source: Source) -> tuple[SettingsLayer | None, list[str]]:
    """A Claude Code settings file, as far as agentcli can use it: each value that does not validate (a newer
    Claude Code key, a mode agentcli lacks) is left out, deepest key first, with a notice; never an error."""
    try:
        data = parse_json(text, path) if text.strip() else {}
    except InputFileError as exc:
        return None, [f"{exc}; agentcli ignored this Claude Code settings file"]
    if not isinstance(data, dict):
        return None, [f"{path}: not a JSON object; agentcli ignored this Claude Code settings file"]
    notices: list[str] = []
    for _ in range(MAX_DROPPED_KEYS):
        try:
            return SettingsLayer(source, path, data, Settings.model_validate(data), claude=True), notices
        except ValidationError as exc:
            issue = exc.errors()[0]
            loc = [part for part in issue["loc"] if isinstance(part, str | int)]
            key = ".".join(str(part) for part in loc)
            data = _without(data, loc)
            notices.append(f"{path}: {key}: {issue['msg']}; agentcli ignores this Claude Code setting")
    return None, [*notices, f"{path}: too many settings agentcli can't use; ignored"]


def _without(data: dict[str, Any], loc: list[str | int]) -> dict[str, Any]:
    """``data`` without the value at ``loc`` (or, when that key is missing, without the object that lacks it)."""
    copy: Any = json.loads(json.dumps(data))
    parents: list[tuple[Any, str | int]] = []
    node = copy
    for part in loc:
        present = (isinstance(node, dict) and part in node) or (
            isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        )
        if not present:
            break
        parents.append((node, part))
        node = node[part]
    if not parents:
        return {}
    container, part = parents[-1]
    del container[part]
    return dict(copy)


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Objects merge key by key, lists add up (without repeats), anything else is replaced."""
    out = dict(base)
    for key, value in override.items():
        current = out.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            out[key] = _merge(current, value)
        elif isinstance(current, list) and isinstance(value, list):
            out[key] = current + [item for item in value if item not in current]
        else:
            out[key] = value
    return out


def _claude_layers(project_dir: Path) -> tuple[list[SettingsLayer], list[str]]:
    """Claude Code's files that exist, as layers, and notices about what of them agentcli left out."""
    layers: list[SettingsLayer] = []
    notices: list[str] = []
    for source, path in claude_settings_paths(project_dir):
        try:
            text = read_input(path)
        except InputFileError as exc:
            notices.append(f"{exc}; agentcli ignored this Claude Code settings file")
            continue
        if text is not None:
            layer, found = parse_claude_settings(text, str(path), source)
            notices += found
            if layer is not None:
                layers.append(layer)
    return layers, notices


def load_settings(project_dir: Path, flag: str | None = None, *, trusted: bool | None = None) -> LoadedSettings:
    """Read every layer; ``flag`` is ``--settings``: a file path or inline JSON. ``trusted`` None: whether the user
    trusted this folder before."""
    loaded = LoadedSettings()
    claude_layers, notices = _claude_layers(project_dir)
    candidates: list[tuple[Source, str, str]] = []
    for source, path in settings_paths(project_dir):
        try:
            text = read_input(path)
        except InputFileError as exc:
            loaded.errors.append(SettingsError(str(exc), str(path)))
            continue
        if text is not None:
            candidates.append((source, str(path), text))
    if flag is not None:
        if flag.lstrip().startswith("{"):
            candidates.append(("flagSettings", "--settings", flag))
        else:
            try:
                text = read_input(Path(flag).expanduser())
            except InputFileError as exc:
                loaded.errors.append(SettingsError(f"--settings {exc}", flag))
            else:
                if text is None:
                    loaded.errors.append(SettingsError(f"--settings {flag}: No such file or directory", flag))
                else:
                    candidates.append(("flagSettings", flag, text))
    layers: list[SettingsLayer] = []
    for source, origin, text in candidates:
        try:
            layers.append(parse_settings(text, origin, source))
        except SettingsError as exc:
            loaded.errors.append(exc)
    return _combine(
        layers,
        errors=loaded.errors,
        trusted=is_trusted(project_dir) if trusted is None else trusted,
        project_dir=project_dir,
        claude=(claude_layers, notices),
    )


def _combine(
    own_layers: list[SettingsLayer],
    *,
    errors: list[SettingsError],
    trusted: bool,
    project_dir: Path | None = None,
    claude: tuple[list[SettingsLayer], list[str]] = ([], []),
) -> LoadedSettings:
    """Filter project-scope layers unless ``trusted``, then merge. Claude Code's files count unless a layer that
    counts says ``claudeCompat: false`` (an untrusted project's say is withheld: it would drop the user's rules)."""
    claude_layers, claude_notices = claude
    compat = [
        layer.settings.claudeCompat
        for layer in own_layers
        if layer.settings.claudeCompat is not None and (trusted or not layer.project_scope)
    ]
    reads_claude = not compat or compat[-1]
    source_layers = [*claude_layers, *own_layers] if reads_claude else list(own_layers)
    loaded = LoadedSettings(errors=errors, trusted=trusted, source_layers=source_layers)
    loaded.own_layers, loaded.claude = own_layers, claude
    loaded.notices = list(claude_notices) if reads_claude else []
    merged: dict[str, Any] = {}
    for layer in source_layers:
        if layer.project_scope and not trusted:
            data, withheld = withhold_untrusted(layer.data, mode_so_far(merged))
            if withheld:
                shown = Path(layer.path)
                if project_dir is not None and shown.is_relative_to(project_dir):
                    shown = shown.relative_to(project_dir)
                loaded.withheld[str(shown)] = withheld
                layer = SettingsLayer(layer.source, layer.path, data, Settings.model_validate(data), layer.claude)
        loaded.layers.append(layer)
        merged = _merge(merged, layer.data)
    loaded.merged = Settings.model_validate(merged)
    loaded.project_dir = project_dir
    return loaded


def mode_so_far(merged: dict[str, Any]) -> str | None:
    permissions = merged.get("permissions")
    mode = permissions.get("defaultMode") if isinstance(permissions, dict) else None
    return mode if isinstance(mode, str) else None
