"""Gather a session's MCP servers from its settings, the project's ``.mcp.json`` and the command line."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agentcli.mcp.config import McpSources, ServerSpec, collect_servers
from agentcli.mcp.hosted import HostedSend
from agentcli.mcp.manager import McpManager


def mcp_sources(
    project_dir: Path,
    layers: list[Any],
    *,
    trusted: bool,
    flags: list[str],
    strict: bool,
    extra: list[ServerSpec] | None = None,
) -> tuple[McpSources, list[str]]:
    """The sources a session may use (settings layers arrive already filtered for an untrusted folder), and a
    notice when the project's ``.mcp.json`` is skipped because the folder is not trusted."""
    sources = McpSources(flags=list(flags), strict=strict, extra=list(extra or []))
    for layer in layers:
        servers = layer.data.get("mcpServers")
        if servers:
            sources.settings_layers.append((layer.path, servers))
    project_file = project_dir / ".mcp.json"
    notices = []
    if project_file.is_file():
        if trusted:
            sources.project_file = project_file
        elif not strict:
            notices.append(
                f"MCP servers in {project_file} were not started: this folder is not trusted "
                "(run with --trust-project to allow them)"
            )
    return sources, notices


def build_mcp(
    project_dir: Path,
    sources: McpSources,
    env: dict[str, str] | None = None,
    hosted: HostedSend | None = None,
    removed_tools: Iterable[str] = (),
) -> tuple[McpManager | None, list[str]]:
    """The session's manager (None without servers) and notices about configuration problems. ``hosted`` reaches
    the driving program's SDK-hosted servers; ``removed_tools`` are the tool names of bare deny rules.

    Raises :class:`agentcli.mcp.config.McpConfigError` for a broken ``--mcp-config`` (a usage error)."""
    specs, problems = collect_servers(sources, env)
    if not specs:
        return None, problems
    return McpManager(specs, str(project_dir), hosted, removed_tools), problems
