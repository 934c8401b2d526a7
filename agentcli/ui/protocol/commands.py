"""Slash commands sent as user messages on stdin, run by the shared registry (agentcli/commands).

What a command reports becomes the ``result`` of that message (so a driving program waiting for a result gets
one); ``/clear`` also prints ``conversation_reset`` and starts a new session; a command that prompts the model
(``/init``, custom commands) runs a normal turn instead.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

from agentcli import sdk_messages as sdk
from agentcli.commands import CommandRegistry, parse_command, session_registry
from agentcli.commands.face import CommandFace
from agentcli.usage import UsageTracker

if TYPE_CHECKING:
    from agentcli.ui.protocol.frames import UserFrame
    from agentcli.ui.protocol.session import ProtocolFace

Message = dict[str, Any]
FACE_NAME = "stream-json"


def registry(face: ProtocolFace) -> CommandRegistry:
    return session_registry(face.engine_or_none)


def descriptions(face: ProtocolFace) -> list[dict[str, str]]:
    """For the ``initialize`` answer: the commands a driving program may send."""
    return [
        {"name": command.name, "description": command.description, "argumentHint": command.argument_hint}
        for command in registry(face).commands(FACE_NAME)
    ]


class StreamCommandFace(CommandFace):
    """A command's view of the protocol face: notices are gathered for the result; /clear resets the session."""

    face_name = FACE_NAME

    def __init__(self, face: ProtocolFace, frame: UserFrame) -> None:
        super().__init__(face.options.cwd)
        self.face = face
        self.frame = frame
        self.lines: list[str] = []
        self.failed = False
        self.prompted = False

    @property
    def engine(self) -> Any:
        return self.face.engine()

    @property
    def options(self) -> Any:
        return self.face.options

    def notice(self, text: str, kind: str = "info", detail: str = "") -> None:
        self.lines.append(f"{text}\n{detail}" if detail else text)
        self.failed = self.failed or kind == "error"

    def show_message(self, message: dict[str, Any]) -> None:
        self.face.emit(message, self.frame)

    async def submit(self, prompt: str) -> None:
        self.prompted = True
        await self.face.run_turn(prompt, self.frame)

    async def new_session(self) -> None:
        old_session = await self.face.reset()
        self.face.emit(
            {
                "type": "conversation_reset",
                "new_conversation_id": str(uuid.uuid4()),
                "uuid": str(uuid.uuid4()),
                "session_id": old_session,
            }
        )


async def run(face: ProtocolFace, frame: UserFrame) -> bool:
    """Run the message as a slash command if it is one (True); False when it is a prompt for the model."""
    content = frame.message.content
    if not isinstance(content, str) or parse_command(content) is None:
        return False
    started = time.monotonic()
    command_face = StreamCommandFace(face, frame)
    if not await registry(face).run(command_face, content):
        return False
    if not command_face.prompted:
        text = "\n\n".join(command_face.lines)
        face.emit(_local_result(face.engine().session_id, started, text, command_face.failed), frame)
    return True


def _local_result(session_id: str, started: float, text: str, failed: bool) -> Message:
    """The result of a command that ran here without asking the model."""
    result = sdk.result_message(
        subtype="error_during_execution" if failed else "success",
        turns=0,
        duration_s=time.monotonic() - started,
        api_time_s=0.0,
        text=text,
        stop_reason=None,
        errors=[text] if failed else [],
        usage=UsageTracker(),
        permission_denials=[],
        terminal_reason="completed",
    )
    return {**result, "session_id": session_id, "uuid": str(uuid.uuid4())}
