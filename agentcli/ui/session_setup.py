"""Everything an interactive face needs to start a session, the slow part of starting it, and the words at exit.

Building the engine imports the settings models, the tools and the SDK (about a second together), and
``--demo`` starts a local server. None of that is needed to draw the first frame, so the app draws first and
runs these steps in a thread afterwards; prompts typed meanwhile are queued.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def credentials_problem(demo: bool) -> str | None:
    """Why this run cannot reach a model (the same words as ``-p``), or None when it can.

    The environment is checked first so that a normal start does not import the session machinery before the
    first frame.
    """
    if demo or os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"):
        return None
    from agentcli.bootstrap import MissingCredentials, SessionOptions, credentials_from_env

    try:
        credentials_from_env(SessionOptions(cwd=Path.cwd()))
    except MissingCredentials as exc:
        return str(exc)
    return None


def session_values(args: Any) -> dict[str, Any]:
    """``SessionOptions`` keyword arguments from the parsed command line."""
    values: dict[str, Any] = {
        "model": args.model,
        "system_prompt": args.system_prompt,
        "append_system_prompt": args.append_system_prompt,
        "max_turns": args.max_turns,
        "max_budget_usd": args.max_budget_usd,
        "include_partial_messages": True,
        "interactive": True,
        "fallback_models": tuple(m.strip() for m in (args.fallback_model or "").split(",") if m.strip()),
        "resume": args.resume or None,
        "continue_session": args.continue_session,
        "fork_session": args.fork_session,
        "session_id": args.session_id,
    }
    for name, key in (
        ("permission_mode", "permission_mode"),
        ("settings", "settings_flag"),
        ("trust_project", "trust_project"),
        ("allowed_tools", "allowed_tools"),
        ("disallowed_tools", "disallowed_tools"),
        ("mcp_config", "mcp_config"),
        ("strict_mcp_config", "strict_mcp_config"),
        ("plugin_dir", "plugin_dirs"),
    ):
        value = getattr(args, name, None)
        if value:
            values[key] = value
    return values


def exit_epilogue(setup: SessionSetup, resume_id: str | None, error: str | None = None) -> None:
    """What a face prints after its screen is gone: transcript problems, the start-up error, how to resume."""
    session = getattr(setup.options, "session", None)
    for problem in getattr(getattr(session, "store", None), "errors", []):
        print(f"agentcli: warning: {problem}", file=sys.stderr)
    if error:
        print(f"agentcli: {error}", file=sys.stderr)
    elif resume_id and session is not None:
        print(f"Resume this session with:\n  agentcli --resume {resume_id}")
    sys.stdout.flush()
    sys.stderr.flush()


class StartupError(Exception):
    """The session can't start (a bad ``--resume`` id, no credentials); the message is for the user.

    ``can_fork``: the session is open in another process; the face may offer :meth:`SessionSetup.fork_instead`.
    """

    def __init__(self, message: str, *, can_fork: bool = False) -> None:
        super().__init__(message)
        self.can_fork = can_fork


@dataclass
class SessionSetup:
    """How to build the engine: ``SessionOptions`` keyword arguments plus credentials, made ready off the UI."""

    cwd: Path
    values: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments for ``agentcli.bootstrap.SessionOptions`` (besides ``cwd``)."""
    credentials: Any = None
    """``agentcli.api.client.Credentials``; None: from the options and the environment."""
    demo: bool = False
    """Start the built-in scripted model and talk to it."""
    pick_resume: bool = False
    """``--resume`` without an id: show the picker before starting."""
    problems: list[str] = field(default_factory=list)
    """Messages to show once at start (bad theme files, unknown theme name, bad settings)."""
    options: Any = None
    demo_server: Any = None

    def prepare(self) -> None:
        """Make the options, load the settings, start the demo server (blocking: run it in a thread)."""
        from agentcli.bootstrap import SessionOptions
        from agentcli.config.settings import load_settings

        if self.options is None:
            self.options = SessionOptions(cwd=self.cwd, **self.values)
        if self.demo and self.demo_server is None:
            from agentcli.demo import start_demo_server

            self.demo_server = start_demo_server()
            self.options.base_url = self.demo_server.base_url
            self.options.api_key = "demo-key"
        if self.options.settings is None:
            self.options.settings = load_settings(self.cwd, self.options.settings_flag)
        self.problems += [str(error) for error in self.options.settings.errors]

    def untrusted_project_hooks(self) -> int:
        """How many project hooks would be skipped because this folder isn't trusted yet."""
        from agentcli.hooks.config import project_hook_count

        settings = self.options.settings
        if self.options.trust_project or settings.trusted:
            return 0
        return project_hook_count(settings.source_layers)

    def list_sessions(self) -> list[Any]:
        from agentcli.session.listing import list_sessions

        return list_sessions(self.cwd, limit=50)

    def build(self) -> Any:
        """Build the engine (blocking). Raises :class:`StartupError` for what the user must fix."""
        from agentcli.bootstrap import MissingCredentials, build_engine, credentials_from_env
        from agentcli.mcp.config import McpConfigError
        from agentcli.session import SessionError
        from agentcli.session.resume import SessionBusy

        try:
            credentials = self.credentials or credentials_from_env(self.options)
            engine = build_engine(self.options, credentials)
        except (SessionError, MissingCredentials, McpConfigError) as exc:
            raise StartupError(str(exc), can_fork=isinstance(exc, SessionBusy)) from None
        from agentcli.ui.rewind import attach_checkpoints

        attach_checkpoints(engine, self.cwd)
        return engine

    def fork_instead(self) -> None:
        """Go on in a copy of the session another process is writing (the user said so)."""
        self.options.fork_session = True
        self.options.session = None

    async def build_async(self) -> Any:
        engine = await asyncio.to_thread(self.build)
        engine.start_services()  # MCP servers connect while the user types
        await asyncio.to_thread(warm_up, engine)
        return engine

    def close(self) -> None:
        """Close the session's transcript and stop the demo server."""
        session = getattr(self.options, "session", None)
        if session is not None:
            session.close()
        if self.demo_server is not None:
            self.demo_server.stop()
            self.demo_server = None


def warm_up(engine: Any) -> None:
    """Build the SDK client (imports, TLS context) now, in a thread while the user types: on the first request it
    would cost a few hundred milliseconds on the interface's loop."""
    importlib.import_module("agentcli.ui.mentions")  # read on every prompt
    engine.config.registry.schemas()  # the tools' JSON Schemas, built once for every request
    prepare = getattr(engine.config.client, "warm_up", None)
    if callable(prepare):
        prepare()
    else:
        importlib.import_module("anthropic")
