"""Where agentcli keeps its files (platformdirs, so XDG_CONFIG_HOME and XDG_DATA_HOME move them)."""

from __future__ import annotations

import os
import re
from pathlib import Path


def config_dir() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("agentcli"))


def data_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("agentcli"))


def claude_dir() -> Path:
    """Claude Code's own folder (``~/.claude``; ``CLAUDE_CONFIG_DIR`` moves it): its settings, commands,
    agents and transcripts are read from here so a Claude Code setup works unchanged."""
    moved = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(moved).expanduser() if moved else Path.home() / ".claude"


def project_slug(cwd: Path) -> str:
    """The folder name for a project's sessions: every non-alphanumeric character becomes ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def sessions_dir(cwd: Path) -> Path:
    return data_dir() / "projects" / project_slug(cwd)


def extension_folders(project_dir: Path, kind: str) -> list[tuple[str, Path]]:
    """Where ``agents``, ``skills`` (…) live, lowest precedence first, as ``(scope, folder)``: the user's Claude
    Code folder and agentcli's, then the project's ``.claude/`` and ``.agentcli/``."""
    return [
        ("user", claude_dir() / kind),
        ("user", config_dir() / kind),
        ("project", project_dir / ".claude" / kind),
        ("project", project_dir / ".agentcli" / kind),
    ]
