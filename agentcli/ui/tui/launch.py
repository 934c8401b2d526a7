"""Start the full-screen interface from the command line, and say how to come back after it exits."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import Any

from agentcli.ui.startup import credentials_problem

EXIT_OK = 0
EXIT_USAGE = 2


def _theme_from_settings(cwd: Path) -> str | None:
    """The ``theme`` setting, read without the settings models (they are not needed for the first frame)."""
    from agentcli.config.inputs import InputFileError, load_json
    from agentcli.config.paths import config_dir

    chosen = None
    for path in (config_dir() / "settings.json", cwd / ".agentcli" / "settings.json",
                 cwd / ".agentcli" / "settings.local.json"):
        try:
            data = load_json(path)
        except InputFileError:
            continue  # reported with the rest of the settings once the session starts
        if isinstance(data, dict) and isinstance(data.get("theme"), str):
            chosen = data["theme"]
    return chosen


def pick_theme(requested: str | None, cwd: Path) -> tuple[str, dict[str, Any], list[str]]:
    """The theme to start with, every theme that loaded, and problems to show once."""
    from textual.theme import BUILTIN_THEMES

    from agentcli.ui.tui.themes import DEFAULT_THEME, available_themes

    themes, problems = available_themes()
    wanted = requested or _theme_from_settings(cwd) or DEFAULT_THEME
    if wanted not in themes and wanted not in BUILTIN_THEMES:
        problems.append(f"Unknown theme {wanted!r}; using {DEFAULT_THEME}. Available: {', '.join(themes)}")
        wanted = DEFAULT_THEME
    return wanted, themes, problems


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
    for name, key in (("permission_mode", "permission_mode"), ("settings", "settings_flag"),
                      ("trust_project", "trust_project"), ("allowed_tools", "allowed_tools"),
                      ("disallowed_tools", "disallowed_tools")):
        value = getattr(args, name, None)
        if value:
            values[key] = value
    return values


def run_tui(args: Any) -> int:
    """Run the app for parsed command-line ``args``; returns the exit status (after printing how to resume)."""
    # Start-up creates a few hundred thousand long-lived objects (Textual now; settings, tools and the SDK in the
    # background after the first frame). Cyclic garbage collection among them finds nothing and costs frames and
    # keystrokes; the app turns it back on, with those objects frozen out of it, once the session is ready.
    gc.disable()
    problem = credentials_problem(bool(args.demo))
    if problem is not None:
        print(f"agentcli: {problem}", file=sys.stderr)
        return EXIT_USAGE
    from agentcli.ui.tui.app import AgentApp
    from agentcli.ui.tui.history import PromptHistory, default_history_path
    from agentcli.ui.tui.session_setup import SessionSetup

    cwd = Path.cwd()
    theme, themes, problems = pick_theme(getattr(args, "theme", None), cwd)
    setup = SessionSetup(cwd, session_values(args), demo=bool(args.demo), pick_resume=args.resume == "",
                         problems=problems)
    app = AgentApp(setup, cwd=cwd, theme=theme, themes=themes, history=PromptHistory(default_history_path(), cwd))
    try:
        app.run()
    finally:
        setup.close()
    session = getattr(setup.options, "session", None)
    for error in getattr(getattr(session, "store", None), "errors", []):
        print(f"agentcli: warning: {error}", file=sys.stderr)
    if app.engine_error:
        print(f"agentcli: {app.engine_error}", file=sys.stderr)
    elif app.session_id and session is not None and any(m.get("type") == "user" for m in app.log_messages):
        print(f"Resume this session with:\n  agentcli --resume {app.session_id}")
    sys.stdout.flush()
    sys.stderr.flush()
    # Interpreter teardown with the SDK loaded costs ~0.3 s; everything is flushed and closed by now.
    os._exit(EXIT_OK if app.engine_error is None else 1)
