"""Where agentcli keeps its files (platformdirs, so XDG_CONFIG_HOME and XDG_DATA_HOME move them)."""

from __future__ import annotations

import re
from pathlib import Path


def config_dir() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("agentcli"))


def data_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("agentcli"))


def project_slug(cwd: Path) -> str:
    """The folder name for a project's sessions: every non-alphanumeric character becomes ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def sessions_dir(cwd: Path) -> Path:
    return data_dir() / "projects" / project_slug(cwd)
