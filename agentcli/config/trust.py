"""Folder trust: settings files inside the project come from the repository, so until the user trusts the folder
they may not run code or widen permissions.

The filter is applied once, where settings are loaded (:func:`agentcli.config.settings.load_settings`), to every
layer marked as project scope; nothing downstream has to remember to check.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcli.config.inputs import InputFileError, load_json
from agentcli.config.modes import no_looser
from agentcli.config.paths import config_dir
from agentcli.files.atomic import atomic_write_text

RUNS_CODE = (
    "hooks",
    "env",
    "apiKeyHelper",
    "statusLine",
    "awsAuthRefresh",
    "awsCredentialExport",
    "otelHeadersHelper",
    "mcpServers",
    "enableAllProjectMcpServers",
    "enabledMcpjsonServers",
    "enabledPlugins",
    "extraKnownMarketplaces",
)
"""Top-level keys that start programs or change how they start: an untrusted project gets none of them."""
USER_CHOICES = ("claudeCompat", "disableAllHooks")
"""Top-level keys that switch the user's own protection on or off (``claudeCompat: false`` drops the user's
``~/.claude`` deny rules; ``disableAllHooks`` their guard hooks): only the user decides them."""
WIDENING_PERMISSIONS = ("allow", "additionalDirectories")


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


def _plural(size: int, noun: str, plural: str = "") -> str:
    return f"{size} {noun if size == 1 else plural or noun + 's'}"


def _hook_count(hooks: Any) -> int:
    if not isinstance(hooks, dict):
        return 1
    groups = [group for value in hooks.values() for group in (value if isinstance(value, list) else [value])]
    return sum(len(group.get("hooks", [])) if isinstance(group, dict) else 1 for group in groups)


def withhold_untrusted(data: dict[str, Any], mode_so_far: str | None = None) -> tuple[dict[str, Any], list[str]]:
    """Split one project-scope settings file into what an untrusted folder may use and a description of the rest.

    Kept: everything that only adds restrictions or is harmless (deny and ask rules, a mode no looser than the
    one the user's own layers chose, ``mode_so_far``, the model). Left out: hooks and every other key that runs a
    program, the whole ``env`` (``BASH_ENV``, ``LD_PRELOAD``, ``GIT_*``… change what every command runs), allow
    rules, extra directories, a looser ``defaultMode``, sandbox settings other than switching it on, and the
    switches only the user decides (``claudeCompat``, ``disableAllHooks``).
    """
    kept = dict(data)
    withheld: list[str] = []
    for key in USER_CHOICES:
        if key in kept:
            withheld.append(f"{key} {json.dumps(kept.pop(key))}")
    for key in RUNS_CODE:
        if key not in kept:
            continue
        value = kept.pop(key)
        if key == "hooks":
            withheld.append(_plural(_hook_count(value), "hook"))
        elif key == "env" and isinstance(value, dict):
            withheld.append(f"env ({', '.join(sorted(value)) or 'empty'})")
        else:
            withheld.append(key)
    permissions = kept.get("permissions")
    if isinstance(permissions, dict):
        kept["permissions"] = _narrowing_permissions(permissions, mode_so_far, withheld)
    sandbox = kept.get("sandbox")
    if isinstance(sandbox, dict):
        narrowed = {"enabled": True} if sandbox.get("enabled") is True else {}
        if set(sandbox) - set(narrowed):
            withheld.append("sandbox settings")
        kept["sandbox"] = narrowed
    return kept, withheld


def _narrowing_permissions(permissions: dict[str, Any], mode_so_far: str | None, withheld: list[str]) -> dict[str, Any]:
    """The permissions an untrusted project may add: deny and ask rules, a mode no looser than ``mode_so_far``."""
    permissions = dict(permissions)
    for key in WIDENING_PERMISSIONS:
        if permissions.get(key):
            size = len(permissions[key]) if isinstance(permissions[key], list) else 1
            withheld.append(
                _plural(size, "allow rule")
                if key == "allow"
                else _plural(size, "additional directory", "additional directories")
            )
        permissions.pop(key, None)
    mode = permissions.get("defaultMode")
    if mode is not None and not no_looser(mode, mode_so_far):
        withheld.append(f"defaultMode {mode}")
        permissions.pop("defaultMode")
    return permissions


def untrusted_notice(withheld: dict[str, list[str]]) -> str | None:
    """One line for the user: what an untrusted folder's settings were denied, per file, and how to trust it."""
    if not withheld:
        return None
    parts = "; ".join(f"{path}: {', '.join(items)}" for path, items in withheld.items())
    return (
        f"this folder is not trusted, so agentcli ignored part of its project settings ({parts}); "
        "run with --trust-project to use them"
    )
