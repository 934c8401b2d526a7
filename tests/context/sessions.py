"""Scripted long sessions for the compaction tests: a project with data files to read and memory to keep, and
the fake API's turns for reading them, answering and summarising."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SUMMARY_CUE = "summary of the conversation so far"
"""Words of the summary instruction: the fake API serves summary turns to requests whose last message has them."""
WINDOW = 16_000
HOUSE_RULE = "House rule: every answer ends with the word PINEAPPLE."
FILES = 8


def setup_project(project: Path, window: int = WINDOW) -> None:
    (project / "AGENTS.md").write_text(f"# Notes\n\n{HOUSE_RULE}\n", encoding="utf-8")
    (project / ".agentcli").mkdir(exist_ok=True)
    (project / ".agentcli" / "settings.json").write_text(json.dumps({"contextWindow": window}), encoding="utf-8")
    (project / "data").mkdir(exist_ok=True)
    for n in range(1, FILES + 1):
        text = "".join(
            f"file {n} line {i:04d}: {'x' if i % 3 else 'y'} lorem ipsum dolor sit amet\n" for i in range(150)
        )
        (project / "data" / f"f{n}.txt").write_text(text, encoding="utf-8")


def own(turn: dict[str, Any]) -> dict[str, Any]:
    """A turn of the conversation itself: never served to a summary request."""
    return {**turn, "when": {"last_user_text_excludes": SUMMARY_CUE}}


def read_turn(project: Path, n: int, note: str = "", call: str = "") -> dict[str, Any]:
    """The model reads data file ``n`` (``call`` tells apart the ids of a file read more than once)."""
    prose = f"Reading file {n}. " + ("I am keeping notes on what each file holds so far. " * 30) + note
    return own(
        {
            "content": [
                {"type": "text", "text": prose},
                {
                    "type": "tool_use",
                    "id": f"toolu_read_{n}{call}",
                    "name": "Read",
                    "input": {"file_path": str(project / "data" / f"f{n}.txt")},
                },
            ]
        }
    )


def summary_turn(text: str = "The user asked to count lines in the data files; files 1-6 were read.") -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "when": {"last_user_text_contains": SUMMARY_CUE}}


def answer_turn(text: str) -> dict[str, Any]:
    return own({"content": [{"type": "text", "text": text}]})
