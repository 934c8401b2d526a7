"""Colour themes from TOML files: the built-in ones shipped with the package, then the user's own.

The built-in files live in the package (``agentcli/ui/tui/themes/``) so an installed agentcli has them; the
repository's top-level ``themes/`` folder holds the same files for people browsing or copying them, and a test
keeps the two identical. User themes come from ``<config>/themes/*.toml`` and may replace a built-in by name.
A file that can't be used becomes a message for the user, never a crash.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from textual.theme import Theme

from agentcli.config.inputs import InputFileError, load_json, parse_toml, read_input
from agentcli.files.atomic import atomic_write_text

DEFAULT_THEME = "dark"
APP_VARIABLES = {"prompt-border": "#888888", "fence-background": "#2A2927"}
THEME_FIELDS = frozenset(field.name for field in dataclasses.fields(Theme))
COLOR_FIELDS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)


class ThemeError(Exception):
    """A theme file or name that can't be used; the message says which and why."""


def builtin_theme_dir() -> Path:
    return Path(__file__).with_name("themes")


def user_theme_dir() -> Path:
    from agentcli.config.paths import config_dir

    return config_dir() / "themes"


def parse_theme(text: str, source: str, default_name: str) -> Theme:
    """Build a Theme from TOML text; raises :class:`ThemeError` naming ``source``."""
    try:
        data: dict[str, Any] = parse_toml(text, source)
    except InputFileError as exc:
        raise ThemeError(str(exc)) from None
    unknown = sorted(set(data) - THEME_FIELDS)
    if unknown:
        raise ThemeError(f"{source}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(THEME_FIELDS))}")
    data.setdefault("name", default_name)
    if not isinstance(data.get("primary"), str):
        raise ThemeError(f"{source}: 'primary' (a colour) is required")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ThemeError(f"{source}: [variables] must map names to colour strings")
    from textual.color import Color, ColorParseError

    for key in COLOR_FIELDS:
        value = data.get(key)
        if value is None:
            continue
        try:
            Color.parse(value)
        except (ColorParseError, TypeError, ValueError):
            raise ThemeError(f"{source}: {key} = {value!r} is not a colour") from None
    try:
        theme = Theme(**data)
        theme.to_color_system().generate()
    except Exception as exc:  # Theme validates lazily; any failure here means the file is unusable
        raise ThemeError(f"{source}: {exc}") from None
    return theme


def load_theme_dir(folder: Path) -> tuple[list[Theme], list[str]]:
    """Every ``*.toml`` in ``folder`` (none if it doesn't exist), plus one message per unusable file."""
    themes: list[Theme] = []
    problems: list[str] = []
    try:
        paths = sorted(folder.glob("*.toml"))
    except OSError:
        return themes, problems
    for path in paths:
        try:
            text = read_input(path)
            if text is not None:
                themes.append(parse_theme(text, str(path), path.stem))
        except InputFileError as exc:
            problems.append(f"Theme file skipped: {exc}")
        except ThemeError as exc:
            problems.append(f"Theme file skipped: {exc}")
    return themes, problems


def available_themes() -> tuple[dict[str, Theme], list[str]]:
    """Built-in then user themes by name, and the problems found while loading them."""
    found: dict[str, Theme] = {}
    problems: list[str] = []
    for folder in (builtin_theme_dir(), user_theme_dir()):
        themes, errors = load_theme_dir(folder)
        problems += errors
        found.update((theme.name, theme) for theme in themes)
    return found, problems


def save_theme_choice(name: str) -> str | None:
    """Remember ``name`` in the user settings file; returns a message if that isn't possible."""
    from agentcli.config.paths import config_dir

    path = config_dir() / "settings.json"
    try:
        data = load_json(path) or {}
    except InputFileError as exc:
        return f"The theme was not saved: {exc}"
    if not isinstance(data, dict):
        return f"The theme was not saved: {path} is not a JSON object"
    data["theme"] = name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", private=True)
    except OSError as exc:
        return f"The theme was not saved: {exc}"
    return None
