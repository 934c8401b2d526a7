"""Load Claude Code plugin folders as they are published:

    my-plugin/.claude-plugin/plugin.json   {"name": ..., "version": ..., "description": ...}
    my-plugin/hooks/hooks.json             {"hooks": {"PreToolUse": [...]}} (or the events at the top level)
    my-plugin/commands/*.md  agents/*.md  skills/<name>/SKILL.md  .mcp.json

``${CLAUDE_PLUGIN_ROOT}`` is replaced by the plugin's folder in hook commands and MCP server entries, and set in
their environment, so scripts shipped inside the plugin are found wherever it lives. Plugins come from
``--plugin-dir DIR`` and from settings ``enabledPlugins`` (``{"path/to/plugin": true}``; local folders only).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli.config.inputs import InputFileError, load_json
from agentcli.config.settings import SettingsError, SettingsLayer, parse_settings
from agentcli.hooks.config import ConfiguredHook, configured_hooks
from agentcli.mcp.config import McpConfigError, ServerSpec, servers_in

ROOT_VARIABLE = "CLAUDE_PLUGIN_ROOT"
MANIFEST = Path(".claude-plugin") / "plugin.json"


class PluginError(ValueError):
    """A folder that is not a usable plugin; the message names it and says why."""


@dataclass
class Plugin:
    name: str
    root: Path
    manifest: dict[str, Any]
    source: str
    hooks: list[ConfiguredHook] = field(default_factory=list)
    mcp_servers: list[ServerSpec] = field(default_factory=list)

    @property
    def commands_dir(self) -> Path:
        return self.root / "commands"

    @property
    def agents_dir(self) -> Path:
        return self.root / "agents"

    @property
    def skills_dir(self) -> Path:
        return self.root / "skills"

    @property
    def version(self) -> str:
        return str(self.manifest.get("version") or "")


def _json(path: Path) -> Any:
    try:
        data = load_json(path)
    except InputFileError as exc:
        raise PluginError(str(exc)) from None
    if data is None:
        raise PluginError(f"{path}: No such file or directory")
    return data


def _with_root(text: str, root: Path) -> str:
    return text.replace("${" + ROOT_VARIABLE + "}", str(root)).replace("$" + ROOT_VARIABLE, str(root))


def load_plugin(root: Path, source: str, env: dict[str, str]) -> Plugin:
    root = root.expanduser().resolve()
    if not (root / MANIFEST).is_file():
        raise PluginError(f"{root}: not a plugin folder (no {MANIFEST})")
    manifest = _json(root / MANIFEST)
    if not isinstance(manifest, dict) or not isinstance(manifest.get("name"), str) or not manifest["name"]:
        raise PluginError(f'{root / MANIFEST}: a plugin needs a "name"')
    plugin = Plugin(manifest["name"], root, manifest, source)
    plugin.hooks = _hooks(root, manifest)
    plugin.mcp_servers = _servers(root, manifest, env)
    return plugin


def _hooks(root: Path, manifest: dict[str, Any]) -> list[ConfiguredHook]:
    declared = manifest.get("hooks")
    if isinstance(declared, dict):
        data, path = declared, root / MANIFEST
    else:
        path = root / (declared if isinstance(declared, str) else "hooks/hooks.json")
        if not path.is_file():
            return []
        data = _json(path)
    if not isinstance(data, dict):
        raise PluginError(f"{path}: expected a JSON object")
    events = (
        data["hooks"]
        if isinstance(data.get("hooks"), dict)
        else {key: value for key, value in data.items() if key != "description"}
    )
    try:
        layer: SettingsLayer = parse_settings(json.dumps({"hooks": events}), str(path), "userSettings")
    except SettingsError as exc:
        raise PluginError(str(exc)) from None
    return [
        dataclasses.replace(hook, command=_with_root(hook.command, root), plugin_root=str(root))
        for hook in configured_hooks([layer])
    ]


def _servers(root: Path, manifest: dict[str, Any], env: dict[str, str]) -> list[ServerSpec]:
    declared = manifest.get("mcpServers")
    if isinstance(declared, dict):
        data, source = {"mcpServers": declared}, str(root / MANIFEST)
    else:
        path = root / (declared if isinstance(declared, str) else ".mcp.json")
        if not path.is_file():
            return []
        data, source = _json(path), str(path)
    try:
        specs = servers_in(data, source, {**env, ROOT_VARIABLE: str(root)})
    except McpConfigError as exc:
        raise PluginError(str(exc)) from None
    for spec in specs:
        spec.plugin_root = str(root)
    return specs


@dataclass
class PluginSet:
    plugins: list[Plugin] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def hooks(self) -> list[ConfiguredHook]:
        return [hook for plugin in self.plugins for hook in plugin.hooks]

    @property
    def mcp_servers(self) -> list[ServerSpec]:
        return [spec for plugin in self.plugins for spec in plugin.mcp_servers]

    def folders(self, kind: str) -> list[tuple[str, Path]]:
        """``(source, folder)`` of each plugin's ``agents``, ``skills`` or ``commands`` folder that exists."""
        return [(f"plugin {p.name}", p.root / kind) for p in self.plugins if (p.root / kind).is_dir()]


def enabled_in_settings(layers: list[SettingsLayer], project_dir: Path) -> list[tuple[Path, str]]:
    """Plugin folders that settings enable (``enabledPlugins``; an untrusted folder's settings arrive without it)."""
    found: dict[str, tuple[Path, str]] = {}
    for layer in layers:
        enabled = layer.data.get("enabledPlugins")
        if not isinstance(enabled, dict):
            continue
        for key, on in enabled.items():
            path = Path(key).expanduser()
            path = path if path.is_absolute() else project_dir / path
            if on:
                found[key] = (path, layer.path)
            else:
                found.pop(key, None)
    return list(found.values())


def load_plugins(dirs: list[tuple[Path, str]], env: dict[str, str]) -> PluginSet:
    """Load each folder; a broken one becomes a problem to report, never a failure of the session."""
    loaded = PluginSet()
    seen: set[str] = set()
    for root, source in dirs:
        if not root.expanduser().is_dir() and "@" in root.name:
            loaded.problems.append(
                f"plugin {root.name} ({source}): only local plugin folders are supported; give the folder's path"
            )
            continue
        try:
            plugin = load_plugin(root, source, env)
        except PluginError as exc:
            loaded.problems.append(f"plugin {exc}")
            continue
        if plugin.name in seen:
            continue
        seen.add(plugin.name)
        loaded.plugins.append(plugin)
    return loaded
