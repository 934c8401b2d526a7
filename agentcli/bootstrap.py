"""Assemble a session from options: credentials, model client, tools, permissions, engine.

Every face builds its engine here, so they differ only in how they render and ask.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli.api.client import AnthropicClient, Credentials
from agentcli.api.retry import RetryPolicy
from agentcli.context.system_prompt import build_system_prompt
from agentcli.engine import EngineConfig, QueryEngine
from agentcli.tools.base import ToolEnv
from agentcli.tools.permissions import CanUseTool, PermissionDecision
from agentcli.tools.registry import default_registry

DEFAULT_MODEL = "claude-sonnet-5-5"
DEFAULT_IDLE_TIMEOUT_MS = 60_000


class MissingCredentials(Exception):
    """No API key or token, and no demo server: the user must be told how to proceed."""


@dataclass
class SessionOptions:
    """What a face asks for; unset fields fall back to the environment, then to defaults."""

    cwd: Path
    model: str | None = None
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    max_turns: int | None = None
    max_budget_usd: float | None = None
    include_partial_messages: bool = False
    permission_mode: str = "default"
    interactive: bool = False
    base_url: str | None = None
    api_key: str | None = None
    fallback_models: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


def credentials_from_env(options: SessionOptions) -> Credentials:
    api_key = options.api_key or os.environ.get("ANTHROPIC_API_KEY") or None
    auth_token = os.environ.get("ANTHROPIC_AUTH_TOKEN") or None
    if not api_key and not auth_token:
        raise MissingCredentials(
            "No credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN for a bearer token), "
            "or try agentcli without a key: agentcli --demo"
        )
    base_url = options.base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
    return Credentials(api_key=api_key, auth_token=auth_token, base_url=base_url)


def idle_timeout_s() -> float:
    raw = os.environ.get("AGENTCLI_STREAM_IDLE_TIMEOUT_MS")
    try:
        value = int(raw) if raw else DEFAULT_IDLE_TIMEOUT_MS
    except ValueError:
        value = DEFAULT_IDLE_TIMEOUT_MS
    return max(value, 1) / 1000


def headless_policy(project_dir: Path) -> CanUseTool:
    """Without a person to ask: read-only calls inside the project run, anything else is denied with a reason."""
    from agentcli.tools.paths import resolve

    root = project_dir.resolve()

    async def can_use_tool(tool: Any, tool_input: dict[str, Any], call: Any) -> PermissionDecision:
        parsed = tool.input_model.model_validate(tool_input)
        if tool.is_read_only(parsed):
            target = tool.target_path(parsed)
            if target is None or resolve(target, project_dir).resolve().is_relative_to(root):
                return PermissionDecision("allow")
        return PermissionDecision(
            "deny",
            f"Permission to use {tool.name} was denied: this run cannot ask the user for approval. "
            "Do not retry this call.",
        )

    return can_use_tool


def build_engine(options: SessionOptions, credentials: Credentials) -> QueryEngine:
    model = options.model or os.environ.get("ANTHROPIC_MODEL") or DEFAULT_MODEL
    project_dir = options.cwd
    client = AnthropicClient(credentials, idle_timeout_s=idle_timeout_s())
    registry = default_registry()
    env = ToolEnv(project_dir=project_dir)
    config = EngineConfig(
        client=client,
        registry=registry,
        tool_env=env,
        model=model,
        system_prompt=build_system_prompt(
            project_dir, override=options.system_prompt, append=options.append_system_prompt, model=model
        ),
        max_turns=options.max_turns,
        max_budget_usd=options.max_budget_usd,
        permission_mode=options.permission_mode,
        can_use_tool=headless_policy(project_dir),
        include_partial_messages=options.include_partial_messages,
        api_key_source=credentials.source,
        retry_policy=RetryPolicy.from_env(fallback_models=tuple(m for m in options.fallback_models if m != model)),
    )
    return QueryEngine(config)
