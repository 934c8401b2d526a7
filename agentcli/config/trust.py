"""Folder trust: project settings come from the repository, so their hooks run only in folders the user trusts."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.config.inputs import InputFileError, load_json
from agentcli.config.paths import config_dir
from agentcli.files.atomic import atomic_write_text


def _store() -> Path:
    return config_dir() / "trusted_folders.json"


def trusted_folders() -> list[str]:
    try:
        data = load_json(_store())
    except InputFileError:
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
    atomic_write_text(path, json.dumps([*folders, resolved], indent=2), private=True)
