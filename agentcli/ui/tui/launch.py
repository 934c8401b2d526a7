"""Start the full-screen interface from the command line, and say how to come back after it exits."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import Any

from agentcli.ui.session_setup import credentials_problem, exit_epilogue, session_values

EXIT_OK = 0
EXIT_USAGE = 2


def _theme_from_settings(cwd: Path) -> str | None:
    """The ``theme`` setting, read without the settings models (they are not needed for the first frame)."""
    from agentcli.config.inputs import InputFileError, load_json
    from agentcli.config.paths import config_dir

    chosen = None
    for path in (
        config_dir() / "settings.json",
        cwd / ".agentcli" / "settings.json",
        cwd / ".agentcli" / "settings.local.json",
    ):
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
    from agentcli.ui.history import PromptHistory, default_history_path
    from agentcli.ui.session_setup import SessionSetup
    from agentcli.ui.tui.app import AgentApp

    cwd = Path.cwd()
    theme, themes, problems = pick_theme(getattr(args, "theme", None), cwd)
    setup = SessionSetup(
        cwd, session_values(args), demo=bool(args.demo), pick_resume=args.resume == "", problems=problems
    )
    app = AgentApp(
        setup,
        cwd=cwd,
        theme=theme,
        themes=themes,
        history=PromptHistory(default_history_path(), cwd),
        handle_signals=True,
        first_prompt=getattr(args, "prompt", None),
    )
    try:
        app.run()
    finally:
        setup.close()
    used = app.log_messages.has_prompt
    exit_epilogue(setup, app.session_id if used else None, app.engine_error)
    # Interpreter teardown with the SDK loaded costs ~0.3 s; everything is flushed and closed by now.
    if app.ended_by is not None:
        from agentcli.ui.signals import exit_status

        os._exit(exit_status(app.ended_by))
    os._exit(EXIT_OK if app.engine_error is None else 1)
