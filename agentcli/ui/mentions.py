"""``@file`` and ``@folder`` in a prompt, and pasted image paths: what they name goes to the model with the prompt.

A file is attached as the Read tool returns it (numbered lines, bounded; an image as an image block), a folder as
its listing. Only what the Read permission allows is attached, exactly as if the model had asked: a file a deny
rule covers, or one outside the project, stays a plain mention and the model is told why. A path to an image
pasted without ``@`` (what dropping a screenshot on a terminal types) is attached too.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli.files.images import IMAGE_SUFFIXES

MENTION = re.compile(r'(?<![\w@])@(?:"([^"]+)"|(\S+))')
MAX_MENTIONS = 10
MAX_LISTING = 200
SKIPPED_FOLDERS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".pytest_cache"})

Block = dict[str, Any]


@dataclass
class Attachments:
    blocks: list[Block] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    """What was attached, as the user wrote it (for the face to show)."""


def _candidates(text: str, cwd: Path) -> list[tuple[str, Path]]:
    """``(as written, path)`` for every mention and every pasted image path, in order, once each."""
    found: list[tuple[str, Path]] = []
    for match in MENTION.finditer(text):
        written = (match.group(1) or match.group(2) or "").rstrip(".,;:!?)")
        if written:
            found.append((f"@{written}", _resolve(written, cwd)))
    try:
        words = shlex.split(text, posix=True)
    except ValueError:
        words = text.split()
    for word in words:
        if not word.startswith("@") and Path(word).suffix.lower() in IMAGE_SUFFIXES and ("/" in word or os.sep in word):
            path = _resolve(word, cwd)
            if path.is_file():
                found.append((word, path))
    seen: set[Path] = set()
    unique = []
    for written, path in found:
        if path not in seen:
            seen.add(path)
            unique.append((written, path))
    return unique[:MAX_MENTIONS]


def _resolve(written: str, cwd: Path) -> Path:
    path = Path(os.path.expanduser(written))
    return path if path.is_absolute() else cwd / path


def _listing(folder: Path) -> str:
    entries: list[str] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_FOLDERS)
        base = Path(root).relative_to(folder)
        for name in [*(f"{d}/" for d in dirs), *sorted(files)]:
            entries.append(str(base / name) if str(base) != "." else name)
            if len(entries) >= MAX_LISTING:
                return "\n".join(entries) + f"\n… (listing cut at {MAX_LISTING} entries)"
    return "\n".join(entries) or "(empty folder)"


def _reminder(text: str) -> Block:
    return {"type": "text", "text": f"<system-reminder>\n{text}\n</system-reminder>"}


async def attach_mentions(engine: Any, text: str, cwd: Path) -> Attachments:
    """What the mentions in ``text`` attach (nothing for a slash command, which its own expansion handles)."""
    from agentcli.tools.base import ToolCall, ToolFailure, parse_input

    attached = Attachments()
    if text.lstrip().startswith("/"):
        return attached
    config = engine.config
    read = config.registry.get("Read")
    policy = config.permission_policy
    for written, path in _candidates(text, cwd):
        if not path.exists():
            continue
        tool_input = {"file_path": str(path)}
        verdict = policy.evaluate(read, tool_input, config.tool_env) if policy is not None else None
        if verdict is not None and verdict.behavior != "allow":
            why = verdict.reason or "the permission rules do not allow reading it"
            attached.blocks.append(_reminder(f"{written} was not attached: {why}."))
            continue
        if path.is_dir():
            listing = _listing(path)
            attached.blocks.append(_reminder(f"The user mentioned the folder {path}. Its contents:\n{listing}"))
            attached.names.append(written)
            continue
        parsed = parse_input(read, tool_input)
        if isinstance(parsed, str):
            continue
        try:
            output = await read.call(parsed, ToolCall(config.tool_env, f"mention_{len(attached.names)}"))
        except ToolFailure as exc:
            attached.blocks.append(_reminder(f"{written} could not be attached: {exc}"))
            continue
        intro = f"Called the Read tool with the following input: {json.dumps(tool_input)}"
        if isinstance(output.content, str):
            attached.blocks.append(_reminder(f"{intro}\nResult of calling the Read tool:\n{output.content}"))
        else:
            attached.blocks.append(_reminder(intro))
            attached.blocks.extend(output.content)
        attached.names.append(written)
    return attached


async def with_mentions(engine: Any, prompt: str | list[Block], cwd: Path) -> str | list[Block]:
    """The prompt as sent: unchanged when it mentions nothing attachable, else its text and the attachments."""
    config = getattr(engine, "config", None)
    if not isinstance(prompt, str) or ("@" not in prompt and "." not in prompt):
        return prompt
    if getattr(config, "registry", None) is None or getattr(config, "tool_env", None) is None:
        return prompt
    attached = await attach_mentions(engine, prompt, cwd)
    if not attached.blocks:
        return prompt
    return [{"type": "text", "text": prompt}, *attached.blocks]
