"""Where MCP servers are configured and what a server entry says.

Sources, later ones overriding earlier ones by name: the settings files' ``mcpServers``, the project's
``.mcp.json`` (like project hooks, only in a trusted folder: a server is a program that runs), then each
``--mcp-config`` in order. ``--strict-mcp-config`` keeps only the last. ``${VAR}`` and ``${VAR:-default}`` are
expanded in commands, arguments, environment values, URLs and headers.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from agentcli.config.inputs import InputFileError, parse_json, read_input


class _Entry(BaseModel):
    model_config = ConfigDict(extra="allow")


class StdioServer(_Entry):
    type: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None


class HttpServer(_Entry):
    type: Literal["http", "streamable-http"]
    url: str = Field(min_length=1)
    headers: dict[str, str] = Field(default_factory=dict)


class SseServer(_Entry):
    type: Literal["sse"]
    url: str = Field(min_length=1)
    headers: dict[str, str] = Field(default_factory=dict)


class SdkServer(_Entry):
    """A server hosted by the program driving agentcli over the SDK protocol (reached through control requests)."""

    type: Literal["sdk"]
    name: str | None = None


ServerConfig = Annotated[StdioServer | HttpServer | SseServer | SdkServer, Field(discriminator="type")]
_SERVER = TypeAdapter(ServerConfig)
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class McpConfigError(ValueError):
    """An ``--mcp-config`` value or ``.mcp.json`` that can't be used; the message names the file and the key."""


@dataclass
class ServerSpec:
    """One configured server, expanded and ready to start."""

    name: str
    config: StdioServer | HttpServer | SseServer | SdkServer
    source: str
    """Where it was configured (a path, ``--mcp-config``, a settings layer) — shown by ``/mcp``."""
    missing_vars: list[str] = field(default_factory=list)
    plugin_root: str | None = None
    """For a plugin's server: its folder, given to the server as ``CLAUDE_PLUGIN_ROOT``."""


def expand(value: str, env: dict[str, str], missing: list[str]) -> str:
    """``${VAR}`` and ``${VAR:-default}`` from ``env``; unset variables without a default are noted and left empty."""

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in env:
            return env[name]
        if default is not None:
            return default
        missing.append(name)
        return ""

    return _VAR.sub(replace, value)


def parse_server(name: str, raw: Any, source: str, env: dict[str, str]) -> ServerSpec:
    if not isinstance(raw, dict):
        raise McpConfigError(f"{source}: mcpServers.{name}: expected an object")
    missing: list[str] = []

    def walk(node: Any) -> Any:
        if isinstance(node, str):
            return expand(node, env, missing)
        if isinstance(node, list):
            return [walk(item) for item in node]
        if isinstance(node, dict):
            return {key: walk(value) for key, value in node.items()}
        return node

    data = walk(raw)
    if "type" not in data:
        data["type"] = "stdio" if "command" in data else "http"
    try:
        config = _SERVER.validate_python(data)
    except ValidationError as exc:
        issue = exc.errors()[0]
        where = ".".join(str(part) for part in issue["loc"])
        raise McpConfigError(f"{source}: mcpServers.{name}: {where}: {issue['msg']}") from None
    return ServerSpec(name, config, source, sorted(set(missing)))


def servers_in(data: Any, source: str, env: dict[str, str]) -> list[ServerSpec]:
    """The servers of one ``{"mcpServers": {...}}`` object."""
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        raise McpConfigError(f'{source}: expected an object with an "mcpServers" object')
    return [parse_server(name, raw, source, env) for name, raw in data.get("mcpServers", {}).items()]


def read_config(value: str, env: dict[str, str]) -> list[ServerSpec]:
    """One ``--mcp-config`` value: inline JSON or a file holding it."""
    if value.lstrip().startswith("{"):
        source, text = "--mcp-config", value
    else:
        source = value
        try:
            file_text = read_input(Path(value).expanduser())
        except InputFileError as exc:
            raise McpConfigError(f"--mcp-config {exc}") from None
        if file_text is None:
            raise McpConfigError(f"--mcp-config {value}: No such file or directory")
        text = file_text
    try:
        data = parse_json(text, source)
    except InputFileError as exc:
        raise McpConfigError(str(exc)) from None
    return servers_in(data, source, env)


@dataclass
class McpSources:
    """What the session was started with, gathered by the bootstrap."""

    settings_layers: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """(source, the layer's ``mcpServers``) for each settings layer that may contribute."""
    project_file: Path | None = None
    flags: list[str] = field(default_factory=list)
    strict: bool = False
    extra: list[ServerSpec] = field(default_factory=list)
    """Servers from elsewhere (plugins), already parsed."""


def collect_servers(sources: McpSources, env: dict[str, str] | None = None) -> tuple[list[ServerSpec], list[str]]:
    """Every configured server by name (later sources win) and the problems found on the way, as notices."""
    env = dict(os.environ) if env is None else env
    specs: dict[str, ServerSpec] = {}
    problems: list[str] = []

    def add(found: list[ServerSpec]) -> None:
        for spec in found:
            specs[spec.name] = spec

    if not sources.strict:
        for source, servers in sources.settings_layers:
            try:
                add(servers_in({"mcpServers": servers}, source, env))
            except McpConfigError as exc:
                problems.append(str(exc))
        add(list(sources.extra))
        if sources.project_file is not None and sources.project_file.is_file():
            try:
                add(read_config(str(sources.project_file), env))
            except McpConfigError as exc:
                problems.append(str(exc))
    for flag in sources.flags:
        add(read_config(flag, env))
    for spec in specs.values():
        if spec.missing_vars:
            problems.append(
                f"MCP server {spec.name} ({spec.source}): environment variable(s) not set: "
                + ", ".join(spec.missing_vars)
            )
    return list(specs.values()), problems
