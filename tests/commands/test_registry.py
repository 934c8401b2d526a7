"""The slash-command registry: lookup, suggestions, completion, and custom commands sent to the engine."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from agentcli.commands import parse_command, session_registry, slash_command_names
from agentcli.commands.face import CommandFace

BUILTINS = [
    "help",
    "clear",
    "compact",
    "context",
    "cost",
    "model",
    "resume",
    "status",
    "permissions",
    "hooks",
    "memory",
    "init",
    "export",
    "theme",
    "rewind",
    "exit",
]


class NoteFace(CommandFace):
    face_name = "plain"

    def __init__(self, cwd: Path) -> None:
        super().__init__(cwd)
        self.notes: list[tuple[str, str]] = []
        self.sent: list[str] = []

    def notice(self, text: str, kind: str = "info", detail: str = "") -> None:
        self.notes.append((kind, text))

    async def submit(self, prompt: str) -> None:
        self.sent.append(prompt)


def test_every_listed_command_is_registered_and_in_init():
    names = session_registry().names()
    assert all(name in names for name in BUILTINS)
    assert slash_command_names(["review"])[: len(names)] == names and slash_command_names(["review"])[-1] == "review"


async def test_unknown_command_suggests_the_closest(tmp_path: Path):
    face = NoteFace(tmp_path)
    assert await session_registry().run(face, "/hepl")
    assert face.notes == [("warning", "Unknown command /hepl. Did you mean /help? Type /help for the list.")]


async def test_a_command_of_another_face_is_unknown_here(tmp_path: Path):
    face = NoteFace(tmp_path)
    await session_registry().run(face, "/theme dark")
    assert face.notes[0][0] == "warning" and "Unknown command /theme" in face.notes[0][1]


def test_paths_and_double_slash_are_prompts_not_commands():
    assert parse_command("/usr/bin/env is missing") is None
    assert parse_command("//help") is None
    assert parse_command("/export notes.md") == ("export", "notes.md")
    assert parse_command("/frontend:review now") == ("frontend:review", "now")


def test_completion_keeps_argument_hints_as_text():
    options = dict(session_registry().complete("/ex", "plain"))
    assert options["/export "].endswith("[FILE]") and "/exit" in options


async def test_custom_commands_are_listed_and_sent_to_the_engine(tmp_path: Path):
    custom = SimpleNamespace(name="review", description="Review the diff", argument_hint="[PR]", scope="project")
    engine: Any = SimpleNamespace(config=SimpleNamespace(commands=SimpleNamespace(commands=[custom])))
    registry = session_registry(engine)
    assert dict(registry.complete("/rev", "plain"))["/review "] == "Review the diff  [PR]"
    face = NoteFace(tmp_path)
    await registry.run(face, "/review 42")
    assert face.sent == ["/review 42"]
