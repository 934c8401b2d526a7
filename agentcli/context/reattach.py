"""What a compaction puts back after the summary, besides the user's own words, so the model can go on as before:
plan mode, the skills it loaded, the nested memory files it was given, the todo list, and the files it read last.

A summary tells what happened; these are what the model was *working with*, and a summary would paraphrase them.
Skills are found in the history itself (a Skill result, or what an earlier compaction put back), so they survive
any number of compactions and ``--continue``. Each kind has a bound, so the continuation stays within the
compaction's target however long the session.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agentcli.context.memory import MemoryFile, memory_section
from agentcli.context.tokens import estimate_text

Message = dict[str, Any]

REMINDER = "<system-reminder>\n{}\n</system-reminder>"
PLAN_MODE = (
    "Plan mode is still on: only read-only tools run. Do not change anything yet; go on investigating and "
    "present your plan when it is ready."
)
SKILL_TOOL = "Skill"
SKILL_NOTE = "A skill loaded earlier in this session; its instructions still apply:"
MAX_SKILL_CHARS = 20_000
"""One skill's text at most (its start and end kept); skills together get at most half the re-attach budget."""
MAX_RECENT_FILES = 5
_SKILL_NAME = re.compile(r"<command-name>([^<]+)</command-name>")
_CARRIED_SKILL = REMINDER.format(SKILL_NOTE + "\n\n{}")
_CARRIED_HEAD, _CARRIED_END = _CARRIED_SKILL.split("{}")


def plan_text(permission_mode: str) -> str | None:
    return PLAN_MODE if permission_mode == "plan" else None


def todo_text(todos: list[dict[str, Any]]) -> str | None:
    if not todos:
        return None
    lines = [f"- [{item.get('status', 'pending')}] {item.get('content', '')}" for item in todos]
    return "The current todo list (keep it up to date with TodoWrite):\n" + "\n".join(lines)


def invoked_skills(messages: list[Message]) -> list[str]:
    """The skills loaded in ``messages`` (the text the model got), the latest load of each, oldest first."""
    calls: set[object] = set()
    found: dict[str, str] = {}
    for message in messages:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            text = _skill_in(block, message.get("role"), calls)
            name = _SKILL_NAME.match(text) if text else None
            if text and name:
                found.pop(name.group(1), None)
                found[name.group(1)] = text
    return list(found.values())


def _skill_in(block: object, role: object, calls: set[object]) -> str | None:
    """A skill's text if ``block`` holds one: a Skill result, or a skill an earlier compaction put back."""
    if not isinstance(block, dict):
        return None
    match block.get("type"):
        case "tool_use" if block.get("name") == SKILL_TOOL:
            calls.add(block.get("id"))
        case "tool_result" if block.get("tool_use_id") in calls and not block.get("is_error"):
            content = block.get("content")
            texts = [content] if isinstance(content, str) else [b.get("text") for b in content or []]
            return next((t for t in texts if isinstance(t, str) and t.startswith("<command-name>")), None)
        case "text" if role == "user":
            text = str(block.get("text", ""))
            if text.startswith(_CARRIED_HEAD) and text.endswith(_CARRIED_END):
                return text[len(_CARRIED_HEAD) : len(text) - len(_CARRIED_END)]
    return None


def skill_blocks(skills: list[str], budget_tokens: int) -> tuple[list[str], int]:
    """The skills put back (the most recent first to claim the budget, listed oldest first) and the tokens used;
    ``skills`` are cut to :data:`MAX_SKILL_CHARS` already."""
    kept: list[str] = []
    used = 0
    for text in reversed(skills):
        block = _CARRIED_SKILL.format(text)
        cost = estimate_text(block)
        if used + cost <= budget_tokens:
            kept.append(block)
            used += cost
    return list(reversed(kept)), used


def fitting_memory(files: list[MemoryFile], budget_tokens: int) -> list[MemoryFile]:
    """The nested memory files that fit ``budget_tokens`` (in the order they were sent; a file that does not fit
    is left out whole, and is sent again the next time the model works in its folder)."""
    kept: list[MemoryFile] = []
    used = 0
    for item in files:
        cost = estimate_text(item.text) + 40
        if used + cost <= budget_tokens:
            kept.append(item)
            used += cost
    return kept


def memory_block(files: list[MemoryFile]) -> str | None:
    section = memory_section(files, nested=True)
    return REMINDER.format(section) if section else None


def files_text(paths: list[str], budget_tokens: int, tail: list[Message]) -> str | None:
    """The files read most recently, read again now (they may have changed), within ``budget_tokens``."""
    shown_in_tail = json.dumps(tail, ensure_ascii=False) if tail else ""
    parts: list[str] = []
    used = 0
    for path in reversed(paths[-MAX_RECENT_FILES:]):
        if path in shown_in_tail:
            continue
        try:
            with Path(path).open("rb") as handle:
                data = handle.read(budget_tokens * 4 + 1)
        except OSError:
            continue
        text = data.decode("utf-8", errors="replace")
        cost = estimate_text(text)
        if used + cost > budget_tokens:
            continue
        used += cost
        parts.append(f'<file path="{path}">\n{text}\n</file>')
    if not parts:
        return None
    return "Files read earlier in this session, as they are now:\n\n" + "\n\n".join(parts)
