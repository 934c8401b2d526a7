"""Fixtures for session tests: scripted tool sessions, and the transcripts they leave behind."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentcli.config.paths import sessions_dir


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def text_turn(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


@pytest.fixture
def tool_session(project: Path) -> dict[str, Any]:
    """Two parallel reads (one fails), a thinking turn with one more read, then an answer."""
    readme, app = str(project / "README.md"), str(project / "src" / "app.py")
    return {
        "turns": [
            {
                "content": [
                    {"type": "text", "text": "Reading both."},
                    {"type": "tool_use", "id": "toolu_a1", "name": "Read", "input": {"file_path": readme}},
                    {
                        "type": "tool_use",
                        "id": "toolu_a2",
                        "name": "Read",
                        "input": {"file_path": str(project / "nope")},
                    },
                ]
            },
            {
                "content": [
                    {"type": "thinking", "thinking": "one more", "signature": "sig_b"},
                    {"type": "tool_use", "id": "toolu_b1", "name": "Read", "input": {"file_path": app}},
                ]
            },
            text_turn("The project adds numbers."),
        ]
    }


@pytest.fixture
def transcripts(project: Path) -> Callable[[], list[Path]]:
    """The transcript files of the test project, newest last."""

    def find() -> list[Path]:
        folder = sessions_dir(project)
        if not folder.exists():
            return []
        return sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns)

    return find


@pytest.fixture
def write_transcript(project: Path) -> Callable[[str, list[Any] | bytes], Path]:
    """Write a transcript for ``session_id`` from entries (dicts, raw strings/bytes lines) or raw bytes."""

    def write(session_id: str, content: list[Any] | bytes) -> Path:
        folder = sessions_dir(project)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{session_id}.jsonl"
        if isinstance(content, bytes):
            path.write_bytes(content)
            return path
        out = bytearray()
        for item in content:
            if isinstance(item, dict):
                out += json.dumps(item, separators=(",", ":")).encode() + b"\n"
            elif isinstance(item, str):
                out += item.encode() + b"\n"
            else:
                out += item
        path.write_bytes(bytes(out))
        return path

    return write
