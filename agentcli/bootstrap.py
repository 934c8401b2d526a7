"""Assemble a session from options: credentials, model client, tools, permissions, engine.

Every face builds its engine here, so they differ only in how they render and ask.
"""

from __future__ import annotations

import functools
import os
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli.api.client import AnthropicClient, Credentials
from agentcli.api.retry import RetryPolicy
from agentcli.commands import slash_command_names
from agentcli.config.settings import LoadedSettings, load_settings
from agentcli.config.thinking import max_tokens_for, thinking_param
from agentcli.context.compact import ContextSettings
from agentcli.context.memory import memory_files
from agentcli.context.nested_memory import NestedMemory
from agentcli.context.system_prompt import build_system_prompt
from agentcli.context.user_context import build_user_context
from agentcli.engine import EngineConfig, QueryEngine
from agentcli.hooks.config import ConfiguredHook, configured_hooks, hook_notes, runnable
from agentcli.hooks.model_hooks import ModelHooks
from agentcli.hooks.runner import HookRunner
from agentcli.hooks.session_hooks import SessionHooks
from agentcli.hooks.tool_gate import gate_with_pre_tool_use
from agentcli.mcp.hosted import HostedSend
from agentcli.session.redact import remember_secrets, secret_values
from agentcli.tools.background import BackgroundShells
from agentcli.tools.base import Tool, ToolEnv
from agentcli.tools.paths import resolve as resolve_path
from agentcli.tools.permissions import AskUser, CanUseTool, PermissionPolicy
from agentcli.tools.registry import default_registry
from agentcli.tools.rules import RuleSources, parse_rule_args
from agentcli.tools.sandbox import INSTALL_HINT, Sandbox, SandboxConfig, probe, sandboxed_hook
from agentcli.web.fetch_tool import WebFetchTool
from agentcli.web.search_tool import WebSearchTool
from agentcli.web.search_tool import offered as search_offered

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
    """A person watches the stream (a face), rather than a program reading its events."""
    base_url: str | None = None
    api_key: str | None = None
    fallback_models: tuple[str, ...] = ()
    # Sessions: which history to start from (see agentcli.session.open_session); a face that already opened
    # one (to show its warnings first) passes it as ``session``.
    resume: str | None = None
    continue_session: bool = False
    fork_session: bool = False
    session_id: str | None = None
    persist_session: bool = True
    session: Any = None
    # Settings files and hooks: a face that loaded the settings (to report broken files its own way) passes them.
    settings_flag: str | None = None
    settings: LoadedSettings | None = None
    trust_project: bool = False
    # Permissions: --allowedTools / --disallowedTools in Claude Code's rule syntax ("Read,Bash(git *)"), and how
    # the face asks the user about a call the rules leave open (None, as in -p: such calls are denied).
    allowed_tools: list[str] = field(default_factory=list)
    disallowed_tools: list[str] = field(default_factory=list)
    ask_permission: AskUser | None = None
    tools: list[str] | None = None
    """``--tools``: the built-in tools to offer (None: all of them)."""
    json_schema: dict[str, Any] | None = None
    """``--json-schema``: the run answers through the StructuredOutput tool, checked against this schema."""
    thinking_mode: str | None = None
    max_thinking_tokens: int | None = None
    host_hooks: list[ConfiguredHook] = field(default_factory=list)
    """Hooks a driving program registered (SDK callbacks), run after those of the settings files."""
    # MCP servers: --mcp-config values (files or inline JSON) and --strict-mcp-config (only those).
    mcp_config: list[str] = field(default_factory=list)
    strict_mcp_config: bool = False
    hosted_mcp: HostedSend | None = None
    """How SDK-hosted MCP servers are reached; set by the SDK protocol face."""
    agents: dict[str, Any] | None = None
    """Agent definitions from an SDK client (``initialize.agents``), on top of the agent folders'."""
    plugin_dirs: list[str] = field(default_factory=list)
    """``--plugin-dir`` values: Claude Code plugin folders to load (besides settings ``enabledPlugins``)."""
    notices: list[str] = field(default_factory=list)
    """Filled by :func:`build_engine`: one-line notes for the user (for example project hooks skipped)."""
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


def idle_timeout_s(settings_ms: int | None = None) -> float:
    """``AGENTCLI_STREAM_IDLE_TIMEOUT_MS``, else the ``streamIdleTimeoutMs`` setting, else 60 s."""
    raw = os.environ.get("AGENTCLI_STREAM_IDLE_TIMEOUT_MS")
    try:
        value = int(raw) if raw else (settings_ms or DEFAULT_IDLE_TIMEOUT_MS)
    except ValueError:
        value = settings_ms or DEFAULT_IDLE_TIMEOUT_MS
    return max(value, 1) / 1000


def permission_policy(options: SessionOptions, settings: LoadedSettings) -> tuple[PermissionPolicy, set[str]]:
    """The session's permission policy (mode and rules from the settings files and the command line) and the tools
    a bare deny rule removes. Unreadable rules in settings files become notices; bad command-line rules raise
    :class:`agentcli.tools.rules.InvalidRule`."""
    sources = RuleSources()
    for layer in settings.layers:
        permissions = layer.settings.permissions
        sources.add_lists(layer.source, permissions.allow, permissions.ask, permissions.deny, origin=layer.path)
    sources.rules += parse_rule_args(options.allowed_tools, "allow") + parse_rule_args(options.disallowed_tools, "deny")
    options.notices.extend(sources.problems)
    mode = options.permission_mode
    if mode == "default" and settings.merged.permissions.defaultMode:
        mode = settings.merged.permissions.defaultMode
    policy = PermissionPolicy(
        options.cwd,
        mode=mode,
        rules=sources.rules,
        ask=options.ask_permission,
        sandbox=session_sandbox(options, settings),
    )
    if policy.sandbox is not None:  # look up what Read deny patterns name before the first command needs it
        threading.Thread(target=policy.sandbox.hidden_paths, daemon=True).start()
    return policy, sources.removed_tools()


def session_sandbox(options: SessionOptions, settings: LoadedSettings) -> Sandbox | None:
    """The Bash sandbox the settings ask for; None (and a notice) where it is off or bwrap is missing."""
    wanted = settings.merged.sandbox
    if not wanted.enabled:
        return None
    if shutil.which("bwrap") is None:
        options.notices.append(
            f"the Bash sandbox is off because bwrap was not found: commands are judged by the "
            f"permission rules alone ({INSTALL_HINT})"
        )
        return None
    threading.Thread(target=probe, daemon=True).start()  # ready before the first command, off the start path
    config = SandboxConfig(
        enabled=True,
        auto_allow=wanted.mode == "auto-allow" or wanted.autoAllowBashIfSandboxed is True,
        writable=tuple(resolve_path(path, options.cwd) for path in wanted.writablePaths),
        network=wanted.network is True,
        hooks=wanted.hooks,
    )
    return Sandbox(config, options.cwd)


def open_session_for(options: SessionOptions) -> Any:
    """The session the options ask for (an ``OpenedSession``), or None when nothing is to be persisted."""
    if options.session is not None or not options.persist_session:
        return options.session
    from agentcli.session.resume import open_session

    return open_session(
        options.cwd,
        resume=options.resume,
        continue_last=options.continue_session,
        fork=options.fork_session,
        session_id=options.session_id,
        env=options.settings.merged.env if options.settings is not None else None,
    )


def session_model(options: SessionOptions, settings: LoadedSettings) -> str:
    """The model a session starts with: the option, ``$ANTHROPIC_MODEL``, the ``model`` setting, the default."""
    return options.model or os.environ.get("ANTHROPIC_MODEL") or settings.merged.model or DEFAULT_MODEL


def build_engine(options: SessionOptions, credentials: Credentials) -> QueryEngine:
    project_dir = options.cwd
    settings = options.settings = options.settings or load_settings(project_dir, options.settings_flag)
    if options.trust_project and not settings.trusted:
        settings = options.settings = settings.trusting()
    if (notice := settings.untrusted_notice()) is not None:
        options.notices.append(notice)
    options.notices.extend(settings.notices)
    for layer in settings.source_layers:  # an untrusted folder's env is not applied, but still kept out of files
        remember_secrets(secret_values(layer.settings.env))
    merged = settings.merged
    model = session_model(options, settings)
    fallbacks = options.fallback_models or _as_models(merged.fallbackModel)
    session = options.session = open_session_for(options)
    client = AnthropicClient(credentials, idle_timeout_s=idle_timeout_s(merged.streamIdleTimeoutMs))
    policy, removed_tools = permission_policy(options, settings)
    plugins = _plugins(options, settings)
    wanted = _extension_tool_names(options, removed_tools)
    task_tool = _task_tool(options, plugins) if "Task" in wanted else None
    skill_tool = _skill_tool(options, plugins) if "Skill" in wanted else None
    web_fetch = WebFetchTool() if "WebFetch" in wanted else None
    web_search = WebSearchTool() if "WebSearch" in wanted and search_offered(policy) else None
    extension_tools = [t for t in (task_tool, skill_tool, web_fetch, web_search) if t is not None]
    registry = default_registry(
        allowed=options.tools, disallowed=removed_tools, extra=extension_tools + _session_tools(options)
    )
    thinking = thinking_param(
        options.thinking_mode, options.max_thinking_tokens, os.environ, getattr(merged, "alwaysThinkingEnabled", None)
    )
    store_path = getattr(getattr(session, "store", None), "path", None)
    scratch_dir = Path(store_path).with_suffix("") / "tool-results" if store_path else None
    env = ToolEnv(
        project_dir=project_dir,
        env=dict(merged.env),
        scratch_dir=scratch_dir,
        sandbox=policy.sandbox,
        read_denied=policy.read_denied,
    )
    env.state.shells = BackgroundShells()
    if session is not None:  # a resumed session's reads and todo list still count
        env.state.read_files.update(session.tools.read_files)
        env.state.todos = list(session.tools.todos)
    memory = memory_files(project_dir, trusted=settings.trusted, denied=policy.read_denied)
    loaded = {item.path.resolve() for item in memory}
    env.state.memory = NestedMemory(loaded, trusted=settings.trusted, denied=policy.read_denied)
    hooks = _session_hooks(options, settings, plugins, policy.sandbox)
    config = EngineConfig(
        client=client,
        registry=registry,
        tool_env=env,
        model=model,
        system_prompt=build_system_prompt(override=options.system_prompt, append=options.append_system_prompt),
        user_context=build_user_context(
            project_dir, model=model, include_env=options.system_prompt is None, files=memory
        ),
        max_tokens=max_tokens_for(thinking, EngineConfig.max_tokens),
        thinking=thinking,
        max_turns=options.max_turns,
        max_budget_usd=options.max_budget_usd,
        permission_mode=policy.mode,
        can_use_tool=policy,
        include_partial_messages=options.include_partial_messages,
        merge_text_deltas=options.interactive or not options.include_partial_messages,
        api_key_source=credentials.source,
        retry_policy=RetryPolicy.from_env(
            fallback_models=tuple(m for m in fallbacks if m != model), max_retries=merged.maxRetries
        ),
        hooks=hooks,
        session_source="resume" if options.resume or options.continue_session else "startup",
        services=[env.state.shells],
        extensions={"shells": env.state.shells},
        context=ContextSettings(merged.autoCompact, merged.autoCompactPercent, merged.contextWindow),
    )
    _add_mcp(options, settings, config, plugins, removed_tools)
    if hooks is not None:
        config.can_use_tool = gate_with_pre_tool_use(policy, hooks)
    config.permission_policy = policy
    _add_commands(options, settings, config, plugins)
    custom = [command.name for command in config.commands.commands] if config.commands is not None else []
    config.slash_commands = slash_command_names(config.slash_commands + custom)
    if session is not None:
        config.session_id = session.session_id
        config.recorder = session.store
    elif options.session_id:
        config.session_id = options.session_id
    if hooks is not None:
        from agentcli.agents.hook_agent import HookAgent

        hooks.runner.judge = ModelHooks(client, HookAgent(client, registry, env, config.can_use_tool))
        hooks.runner.current_cwd = lambda: env.state.shell_cwd
        hooks.runner.session_id = config.session_id
        hooks.runner.permission_mode = policy.mode
        store_path = getattr(getattr(session, "store", None), "path", None)
        hooks.runner.transcript_path = str(store_path) if store_path else None
    if web_fetch is not None:
        web_fetch.client = client
    engine = QueryEngine(config, session.messages if session is not None else None)
    if task_tool is not None:
        transcripts = Path(store_path).with_suffix("") / "subagents" if store_path else None
        redactor = session.store.redactor if session is not None else None
        _connect_subagents(task_tool, config, engine.can_use_tool, transcripts, redactor)
    return engine


def _session_tools(options: SessionOptions) -> list[Tool]:
    """Tools this session adds to the built-in set."""
    if options.json_schema is None:
        return []
    from agentcli.tools.structured_output import StructuredOutputTool

    return [StructuredOutputTool(options.json_schema)]


def _extension_tool_names(options: SessionOptions, removed: set[str]) -> set[str]:
    """Which of the extensions' tools the session offers: ``--tools`` narrows them like the built-in ones, a bare
    deny rule removes them."""
    names = {"Task", "Skill", "WebFetch", "WebSearch"}
    if options.tools is not None:
        names &= set(options.tools)
    return names - removed


def _plugins(options: SessionOptions, settings: LoadedSettings) -> Any:
    """Plugin folders from ``--plugin-dir`` and settings ``enabledPlugins``; broken ones become notices."""
    from agentcli.plugins.loader import PluginSet, enabled_in_settings, load_plugins

    folders = enabled_in_settings(settings.layers, options.cwd)
    folders += [(Path(folder).expanduser().absolute(), "--plugin-dir") for folder in options.plugin_dirs]
    if not folders:
        return PluginSet()
    plugins = load_plugins(folders, {**os.environ, **settings.merged.env})
    options.notices.extend(plugins.problems)
    return plugins


def _task_tool(options: SessionOptions, plugins: Any) -> Any:
    from agentcli.agents.definitions import discover_agents, from_sdk
    from agentcli.agents.task_tool import TaskTool

    catalog = discover_agents(options.cwd, plugins.folders("agents"))
    if options.agents:
        catalog.add(from_sdk(options.agents))
    options.notices.extend(catalog.problems)
    return TaskTool(catalog)


def _skill_tool(options: SessionOptions, plugins: Any) -> Any:
    """The Skill tool when there are skills (without any, it would only cost tokens)."""
    from agentcli.skills.catalog import discover_skills
    from agentcli.skills.tool import SkillTool

    catalog = discover_skills(options.cwd, plugins.folders("skills"))
    options.notices.extend(catalog.problems)
    return SkillTool(catalog) if catalog.skills else None


def _connect_subagents(
    task_tool: Any, config: EngineConfig, gate: CanUseTool, transcript_dir: Path | None, redactor: Any
) -> None:
    """Give the Task tool the session's collaborators: sub-agents share its client, tools, rules and hooks, and ask
    through the engine's ``gate``, so their denials are the session's too."""
    from agentcli.agents.runner import SubagentContext

    task_tool.context = SubagentContext(
        client=config.client,
        registry=config.registry,
        tool_env=config.tool_env,
        model=config.model,
        catalog=task_tool.catalog,
        session_id=config.session_id,
        can_use_tool=gate,
        retry_policy=config.retry_policy,
        hooks=config.hooks,
        transcript_dir=transcript_dir,
        max_tokens=config.max_tokens,
        user_context=config.user_context,
        redactor=redactor,
    )


def _add_mcp(
    options: SessionOptions, settings: LoadedSettings, config: EngineConfig, plugins: Any, removed_tools: set[str]
) -> None:
    """MCP servers from settings, plugins, ``.mcp.json`` (trusted folders only) and ``--mcp-config``; started later,
    in the background; tools a bare deny rule names are not offered. A broken ``--mcp-config`` raises
    :class:`agentcli.mcp.config.McpConfigError`."""
    has_any = (
        options.mcp_config
        or plugins.mcp_servers
        or (options.cwd / ".mcp.json").is_file()
        or any(layer.data.get("mcpServers") for layer in settings.layers)
    )
    if not has_any:
        return
    from agentcli.mcp.prompts import LivePrompts, PromptExpander
    from agentcli.mcp.setup import build_mcp, mcp_sources

    sources, notices = mcp_sources(
        options.cwd,
        settings.layers,
        trusted=settings.trusted,
        flags=options.mcp_config,
        strict=options.strict_mcp_config,
        extra=plugins.mcp_servers,
    )
    manager, problems = build_mcp(
        options.cwd, sources, {**os.environ, **settings.merged.env}, options.hosted_mcp, removed_tools
    )
    options.notices.extend(notices + problems)
    if manager is not None:
        config.registry.add_source(manager)
        config.services.append(manager)
        config.mcp_servers = manager.statuses
        config.extensions["mcp"] = manager
        config.expand_prompt = PromptExpander(manager)
        config.mcp_prompts = LivePrompts(manager)


def _add_commands(options: SessionOptions, settings: LoadedSettings, config: EngineConfig, plugins: Any) -> None:
    """Custom slash commands (``.claude/commands``, ``.agentcli/commands``, the user's, plugins'): a submitted
    ``/name args`` is expanded before MCP prompts and mentions."""
    from agentcli.commands.custom import load_commands
    from agentcli.commands.runtime import CommandRunner

    catalog = load_commands(options.cwd, plugins.folders("commands"))
    options.notices.extend(catalog.problems)
    if not catalog.commands:
        return
    config.commands = CommandRunner(
        catalog.commands,
        registry=config.registry,
        tool_env=config.tool_env,
        policy=config.permission_policy,
        can_use_tool=config.can_use_tool,
        trusted=settings.trusted,
        then=config.expand_prompt,
    )
    config.expand_prompt = config.commands


def _as_models(value: str | list[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else value
    return tuple(item.strip() for item in items if item.strip())


def _session_hooks(
    options: SessionOptions, settings: LoadedSettings, plugins: Any, sandbox: Sandbox | None
) -> SessionHooks | None:
    """The session's hooks: the settings files' (an untrusted folder's settings arrive without theirs), the
    plugins', then a driving program's; inside the sandbox when the settings ask for that."""
    configured = configured_hooks(settings.layers) + plugins.hooks + options.host_hooks
    options.notices.extend(hook_notes(configured))
    hooks = runnable(configured)
    if not hooks:
        return None
    runner = HookRunner(hooks, project_dir=options.cwd, env=settings.merged.env)
    if sandbox is not None and sandbox.config.hooks:
        runner.command_wrapper = functools.partial(sandboxed_hook, sandbox)
    return SessionHooks(runner, block_cap=settings.merged.stopHookBlockCap)
