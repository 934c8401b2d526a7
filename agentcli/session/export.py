"""A conversation as Markdown (``/export``): what was asked, said and done, readable without agentcli."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RESULT_PREVIEW_LINES = 40


def _fence(text: str, info: str = "") -> str:
    """A code fence long enough that backticks inside ``text`` cannot close it."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text}\n{ticks}"


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in content)
    return str(content)


def _preview(text: str) -> str:
    lines = text.splitlines()
    if len(lines) <= RESULT_PREVIEW_LINES:
        return text
    return "\n".join(lines[:RESULT_PREVIEW_LINES]) + f"\n… ({len(lines) - RESULT_PREVIEW_LINES} more lines)"


def conversation_markdown(messages: list[dict[str, Any]], *, title: str = "agentcli conversation") -> str:
    """Render API-shaped ``messages`` (the engine's history) as Markdown. Thinking is left out."""
    out = [f"# {title}", ""]
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else (content or [])
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and block.get("text", "").strip():
                text = block["text"]
                if role == "user":
                    if text.startswith("<system-reminder>"):
                        continue
                    out += ["## You", "", text, ""]
                else:
                    out += ["## agentcli", "", text, ""]
            elif kind == "tool_use":
                args = json.dumps(block.get("input", {}), ensure_ascii=False, indent=2)
                out += [f"**{block.get('name', 'tool')}**", "", _fence(args, "json"), ""]
            elif kind == "tool_result":
                label = "Error" if block.get("is_error") else "Result"
                out += [f"{label}:", "", _fence(_preview(_result_text(block.get("content")))), ""]
    return "\n".join(out).rstrip() + "\n"


def write_export(path: Path, messages: list[dict[str, Any]]) -> Path:
    """Write the conversation as Markdown to ``path``: atomically, readable by the user alone, secrets removed."""
    from agentcli.files.atomic import atomic_write_text
    from agentcli.session.redact import redact_text

    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_text(path, redact_text(conversation_markdown(messages)), private=True)
