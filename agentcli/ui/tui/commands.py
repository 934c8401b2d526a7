"""Slash commands in the TUI: the shared registry, run against this face."""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.commands.face import CommandFace

if TYPE_CHECKING:
    from agentcli.ui.tui.app import AgentApp


def editor_command(path: Path) -> list[str]:
    """``$VISUAL`` or ``$EDITOR`` (with its own arguments) on ``path``; ``vi`` when neither is set."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return [*shlex.split(editor), str(path)]


class TuiFace(CommandFace):
    """What commands can do in the full-screen interface."""

    face_name = "tui"

    def __init__(self, app: AgentApp) -> None:
        super().__init__(app.cwd)
        self.app = app

    @property
    def engine(self) -> Any:
        return self.app.engine

    @property
    def options(self) -> Any:
        return getattr(self.app.setup, "options", None)

    def notice(self, text: str, kind: str = "info", detail: str = "") -> None:
        self.app.conversation.add_notice(text, kind, detail=detail)

    def keys_help(self) -> str:
        from agentcli.ui.tui.app import HELP

        return HELP

    async def submit(self, prompt: str) -> None:
        self.app.send(prompt)

    async def leave(self) -> None:
        self.app.action_leave()

    async def new_session(self) -> None:
        await self.app.start_new_session()

    async def pick_session(self) -> None:
        self.app.pick_session()

    async def rewind(self, argument: str) -> None:
        await self.app.rewind()

    async def edit_file(self, path: Path) -> None:
        command = editor_command(path)
        try:
            with self.app.suspend():
                await asyncio.to_thread(subprocess.run, command, check=False)
        except Exception as exc:  # no terminal to hand over (a test, a pipe): run it without one
            if type(exc).__name__ != "SuspendNotSupported":
                raise
            await asyncio.to_thread(
                subprocess.run,
                command,
                check=False,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )

    def theme_names(self) -> list[str]:
        return self.app.theme_names()

    @property
    def theme(self) -> str:
        return self.app.theme

    def set_theme(self, name: str) -> str | None:
        error = self.app.set_theme(name)
        if error:
            return error
        from agentcli.ui.tui.themes import save_theme_choice

        return save_theme_choice(name)

    def open_transcript(self) -> None:
        self.app.action_toggle_transcript()
