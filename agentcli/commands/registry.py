"""The slash-command registry: definitions, lookup, completion and the closest name for a typo."""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.commands.face import CommandFace

Handler = Callable[["CommandFace", str], Awaitable[None]]
"""Runs a command for a face with the text after the command's name."""


@dataclass(frozen=True, slots=True)
class Command:
    """One slash command as /help lists it and completion offers it."""

    name: str
    description: str
    handler: Handler
    aliases: tuple[str, ...] = ()
    argument_hint: str = ""
    source: str = "builtin"
    """``builtin``, ``project``/``user`` (a custom command file) or ``mcp``."""
    faces: tuple[str, ...] = ()
    """The faces it makes sense in (empty: all)."""

    def available_in(self, face: str) -> bool:
        return not self.faces or face in self.faces


def parse_command(text: str) -> tuple[str, str] | None:
    """``("name", "argument")`` for a line that is a slash command; None for anything else (``//`` escapes)."""
    text = text.strip()
    if not text.startswith("/") or text.startswith("//") or len(text) < 2 or text[1].isspace():
        return None
    name, _, argument = text[1:].partition(" ")
    if "/" in name and ":" not in name:
        return None  # an absolute path pasted as a prompt, not a command
    return name, argument.strip()


class CommandRegistry:
    """Commands by name; a later command of the same name replaces an earlier one."""

    def __init__(self, commands: Iterable[Command] = ()) -> None:
        self._commands: dict[str, Command] = {}
        for command in commands:
            self.add(command)

    def add(self, command: Command) -> None:
        self._commands[command.name] = command

    def find(self, name: str) -> Command | None:
        found = self._commands.get(name)
        if found is not None:
            return found
        return next((c for c in self._commands.values() if name in c.aliases), None)

    def commands(self, face: str | None = None) -> list[Command]:
        return [c for c in self._commands.values() if face is None or c.available_in(face)]

    def names(self, face: str | None = None) -> list[str]:
        return [c.name for c in self.commands(face)]

    def suggest(self, name: str, face: str | None = None) -> str | None:
        """The closest command name to a mistyped ``name`` (None when nothing is close)."""
        candidates = [n for c in self.commands(face) for n in (c.name, *c.aliases)]
        prefixed = [n for n in candidates if n.startswith(name)] if name else []
        if prefixed:
            return min(prefixed, key=len)
        close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
        return close[0] if close else None

    def complete(self, text: str, face: str | None = None) -> list[tuple[str, str]]:
        """Completions for a prompt that starts with ``/``: (replacement text, description)."""
        if not text.startswith("/") or "\n" in text or " " in text:
            return []
        name = text[1:]
        return [
            (
                f"/{c.name}" + (" " if c.argument_hint else ""),
                f"{c.description}" + (f"  {c.argument_hint}" if c.argument_hint else ""),
            )
            for c in self.commands(face)
            if c.name.startswith(name) or any(a.startswith(name) for a in c.aliases)
        ]

    def help_lines(self, face: str | None = None) -> list[str]:
        width = max((len(c.name) + len(c.argument_hint) for c in self.commands(face)), default=0) + 3
        return [f"/{(c.name + ' ' + c.argument_hint).strip():<{width}} {c.description}" for c in self.commands(face)]

    async def run(self, face: CommandFace, text: str) -> bool:
        """Run ``text`` if it is a slash command (True); False when it is a prompt for the model."""
        parsed = parse_command(text)
        if parsed is None:
            return False
        name, argument = parsed
        command = self.find(name)
        if command is None or not command.available_in(face.face_name):
            guess = self.suggest(name, face.face_name)
            hint = f" Did you mean /{guess}?" if guess else ""
            face.notice(f"Unknown command /{name}.{hint} Type /help for the list.", "warning")
            return True
        await command.handler(face, argument)
        return True
