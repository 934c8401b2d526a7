"""Slash commands at the REPL's prompt: the shared registry, run against this face."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

from agentcli.commands.face import CommandFace
from agentcli.ui.repl.prompts import KEYS_HELP
from agentcli.ui.tui.commands import editor_command

if TYPE_CHECKING:
    from agentcli.ui.repl.app import Repl


class ReplFace(CommandFace):
    """What commands can do in the inline REPL."""

    face_name = "plain"

    def __init__(self, repl: Repl) -> None:
        super().__init__(repl.cwd)
        self.repl = repl
        self.leaving = False

    @property
    def engine(self) -> Any:
        return self.repl.engine

    @property
    def options(self) -> Any:
        return self.repl.setup.options

    def notice(self, text: str, kind: str = "info", detail: str = "") -> None:
        view = self.repl.view
        if kind == "info" and detail:
            view.print(Text(text, style="bold"), gap=True)
            view.print(Text(detail))
            return
        view.show_notice(text, kind, detail)

    def keys_help(self) -> str:
        return KEYS_HELP

    async def submit(self, prompt: str) -> None:
        await self.repl.run_turn(prompt)

    async def leave(self) -> None:
        self.leaving = True

    async def new_session(self) -> None:
        if not await self.repl.new_session():
            self.leaving = True

    async def pick_session(self) -> None:
        await self.repl.pick_and_switch()

    async def edit_file(self, path: Path) -> None:
        with self.repl.input.cooked_mode():
            await asyncio.to_thread(subprocess.run, editor_command(path), check=False)


async def run_command(repl: Repl, text: str) -> bool:
    """Do what ``text`` asks; False means leave. Unknown commands get a hint instead of going to the model."""
    from agentcli.commands import session_registry

    face = ReplFace(repl)
    await session_registry(repl.engine).run(face, text)
    return not face.leaving
