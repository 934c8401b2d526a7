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

    async def rewind(self, argument: str) -> None:
        """A numbered list of this session's prompts, then what goes back: the conversation, the files or both."""
        from agentcli.ui.repl.prompts import ask_key, ask_line
        from agentcli.ui.rewind import WHAT_CHOICES, checkpoints_of, prompt_label, rewind

        repl = self.repl
        store = checkpoints_of(repl.engine)
        points = store.checkpoints() if store is not None else []
        if not points:
            self.notice("Nothing to rewind yet: no prompt was sent in this session.")
            return
        numbers = {str(point.number) for point in points}
        self.notice("Rewind to before which prompt?", detail="\n".join(prompt_label(p) for p in points))
        chosen = argument if argument in numbers else None
        while chosen is None:
            answer = await ask_line("  number (Enter to cancel) › ", input=repl.input, output=repl.output)
            if not answer or not answer.strip():
                return
            chosen = answer.strip() if answer.strip() in numbers else None
        choices = list(WHAT_CHOICES.items())
        repl.view.print(Text("\n".join(f"  {n}. {label}" for n, (_key, label) in enumerate(choices, 1))))
        keys = {str(n): key for n, (key, _label) in enumerate(choices, 1)}
        what = await ask_key("  1/2/3 › ", keys, input=repl.input, output=repl.output)
        if what is None:
            return
        outcome = await asyncio.to_thread(rewind, repl.engine, repl.cwd, int(chosen), what)  # type: ignore[arg-type]
        if outcome.session_id is not None and not await repl.new_session(outcome.session_id):
            self.leaving = True
            return
        detail = "\n".join([*outcome.restored, *outcome.problems])
        self.notice(outcome.summary(), "warning" if outcome.problems else "success", detail=detail)
        if outcome.session_id is not None:
            self.notice(f"The prompt you went back from: {outcome.prompt}")

    async def edit_file(self, path: Path) -> None:
        with self.repl.input.cooked_mode():
            await asyncio.to_thread(subprocess.run, editor_command(path), check=False)


async def run_command(repl: Repl, text: str) -> bool:
    """Do what ``text`` asks; False means leave. Unknown commands get a hint instead of going to the model."""
    from agentcli.commands import session_registry

    face = ReplFace(repl)
    await session_registry(repl.engine).run(face, text)
    return not face.leaving
