"""Folder trust: project settings come from the repository, so their hooks run only in folders the user trusts."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agentcli.config.paths import config_dir


def _store() -> Path:
    return config_dir() / "trusted_folders.json"


def trusted_folders() -> list[str]:
    try:
        data = json.loads(_store().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [str(item) for item in data] if isinstance(data, list) else []


def is_trusted(folder: Path) -> bool:
    """True when ``folder`` or a folder above it was trusted."""
    resolved = folder.resolve()
    return any(resolved == Path(item) or resolved.is_relative_to(Path(item)) for item in trusted_folders())


def trust(folder: Path) -> None:
    """Remember ``folder`` as trusted (user config, written atomically, private)."""
    folders = trusted_folders()
    resolved = str(folder.resolve())
    if resolved in folders:
        return
    path = _store()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump([*folders, resolved], handle, indent=2)
    temporary.replace(path)
