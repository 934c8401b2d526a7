"""What a slash command may ask of the face that runs it.

Faces subclass :class:`CommandFace` and override what they can do; the defaults say plainly that this face can't,
so a command never fails silently in a face without a screen (stream-json) or without a picker.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


class CommandFace:
    """The face a command runs in: the session's engine and settings, and a few actions only a face can take."""

    face_name = "face"

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd

    @property
    def engine(self) -> Any:
        """The session's QueryEngine, or None while it starts."""
        return None

    @property
    def options(self) -> Any:
        """The session's ``SessionOptions`` (settings, trust), or None while it starts."""
        return None

    def notice(self, text: str, kind: str = "info", detail: str = "") -> None:
        """Show a line of agentcli's own (info, success, warning, error), with optional detail under it."""
        raise NotImplementedError

    def show_message(self, message: dict[str, Any]) -> None:
        """An engine message a command produced (a ``compact_boundary``): faces that stream messages pass it on;
        the others have already said what it means in a notice."""

    def keys_help(self) -> str:
        """The keys this face knows, for /help."""
        return ""

    def _unavailable(self, what: str) -> None:
        self.notice(f"{what} is not available here.", "warning")

    async def submit(self, prompt: str) -> None:
        """Send ``prompt`` to the model as if the user typed it."""
        self._unavailable("Sending a prompt from a command")

    async def leave(self) -> None:
        self._unavailable("/exit")

    async def new_session(self) -> None:
        self._unavailable("/clear")

    async def pick_session(self) -> None:
        self._unavailable("/resume")

    async def rewind(self, argument: str) -> None:
        self._unavailable("/rewind")

    async def edit_file(self, path: Path) -> None:
        self._unavailable("Opening an editor")

    def theme_names(self) -> list[str]:
        return []

    @property
    def theme(self) -> str:
        return ""

    def set_theme(self, name: str) -> str | None:
        """Switch the colour theme; an error message for an unknown name."""
        return "Themes are not available here."

    def open_transcript(self) -> None:
        self._unavailable("The detailed transcript")
