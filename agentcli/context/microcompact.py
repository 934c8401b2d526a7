"""Microcompact and the per-message tool-result budget: shrinking what tools returned, without asking the model.

Old results of tools whose output can be fetched again (a file read, a search, a command, a web page) are the
cheapest context to give up. Past the microcompact threshold, all but the most recent few are replaced by a short
placeholder naming the call, so the model knows what was there and how to get it back. The history is rebuilt on
copies (the transcript keeps the full text) and handed to :meth:`Conversation.replace`, a deliberate new prefix.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcli.context.tokens import estimate_block
from agentcli.tools.output import limit_result

Message = dict[str, Any]

CLEARABLE_TOOLS = frozenset({"Read", "Bash", "Grep", "Glob", "WebFetch"})
MCP_PREFIX = "mcp__"
KEEP_RECENT_RESULTS = 3
MIN_CLEARED_CHARS = 2_000
"""Results shorter than this stay: the placeholder would save too little to be worth the lost detail."""
MAX_INPUT_SHOWN = 200
MESSAGE_RESULTS_BUDGET_CHARS = 150_000
"""All the results of one assistant message together: past this the largest are cut (each already fits
``MAX_RESULT_CHARS``), so a burst of parallel calls cannot fill the window in one step."""
CLEARED_PREFIX = "[Old tool result cleared to save context"


@dataclass(frozen=True)
class Microcompacted:
    messages: list[Message]
    """The new history (the one given when nothing was cleared)."""
    cleared: int
    tokens_saved: int
    large_tokens: int
    """What the large re-runnable results still in ``messages`` hold (the recent ones kept whole, and any that
    were not worth clearing): a bound on what clearing could save until more messages arrive."""
    first_large: int
    """The message holding the earliest of those results (``len(messages)`` when none): a later pass can start
    just before it, since everything earlier is cleared or small."""


def clearable(name: str) -> bool:
    return name in CLEARABLE_TOOLS or name.startswith(MCP_PREFIX)


def placeholder(name: str, tool_input: dict[str, Any], size: int) -> str:
    shown = json.dumps(tool_input, ensure_ascii=False)
    if len(shown) > MAX_INPUT_SHOWN:
        shown = shown[: MAX_INPUT_SHOWN - 1] + "…"
    return (
        f"{CLEARED_PREFIX}: {name} {shown} returned {size:,} characters. "
        f"Call {name} again with the same input if you need it.]"
    )


def _result_chars(block: Message) -> int:
    content = block.get("content")
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        return sum(len(str(item.get("text", ""))) if isinstance(item, dict) else 0 for item in content)
    return 0


def _reminders(block: Message) -> list[Message]:
    """The ``<system-reminder>`` blocks of a tool result (memory files that arrived with it): they outlive the
    result's text, or those rules would be gone for the rest of the session."""
    content = block.get("content")
    if not isinstance(content, list):
        return []
    return [
        item
        for item in content
        if isinstance(item, dict)
        and item.get("type") == "text"
        and str(item.get("text", "")).startswith("<system-reminder>")
    ]


def _clearable_results(messages: list[Message], start: int) -> tuple[list[tuple[int, int]], dict[str, tuple[str, Any]]]:
    """Where the results of re-runnable tools are (message, block) from ``start`` on, and the calls by id."""
    calls: dict[str, tuple[str, Any]] = {}
    found: list[tuple[int, int]] = []
    for index in range(start, len(messages)):
        message = messages[index]
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for position, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "tool_use":
                calls[str(block.get("id"))] = (str(block.get("name")), block.get("input") or {})
            elif kind == "tool_result":
                call = calls.get(str(block.get("tool_use_id")))
                if call is not None and clearable(call[0]):
                    found.append((index, position))
    return found, calls


def microcompact(messages: list[Message], min_tokens_saved: int, start: int = 0) -> Microcompacted:
    """``messages`` with old large results of re-runnable tools replaced by placeholders, when that saves at least
    ``min_tokens_saved`` tokens (``cleared`` is 0 otherwise). ``messages`` itself is never changed. ``start``: a
    message before which every such result is known to be cleared or small (at a tool call, never its result)."""
    candidates, calls = _clearable_results(messages, start)
    recent = len(candidates) - KEEP_RECENT_RESULTS
    chosen: dict[int, dict[int, Message]] = {}
    saved = large = 0
    first_kept = first_any = len(messages)
    for number, (index, position) in enumerate(candidates):
        block = messages[index]["content"][position]
        size = _result_chars(block)
        if size < MIN_CLEARED_CHARS:
            continue
        tokens = estimate_block(block)
        large += tokens
        first_any = min(first_any, index)
        if number >= recent:
            first_kept = min(first_kept, index)
            continue
        name, tool_input = calls[str(block["tool_use_id"])]
        replacement = {"type": "tool_result", "tool_use_id": block["tool_use_id"]}
        reminders = _reminders(block)
        note = placeholder(name, tool_input, size)
        replacement["content"] = [{"type": "text", "text": note}, *reminders] if reminders else note
        if block.get("is_error"):
            replacement["is_error"] = True
        saved += tokens - estimate_block(replacement)
        chosen.setdefault(index, {})[position] = replacement
    if not chosen or saved < min_tokens_saved:
        return Microcompacted(messages, 0, 0, large, first_any)
    rebuilt = list(messages)
    for index, replacements in chosen.items():
        content = list(messages[index]["content"])
        for position, replacement in replacements.items():
            content[position] = replacement
        rebuilt[index] = {**messages[index], "content": content}
    cleared = sum(len(r) for r in chosen.values())
    left = large - saved - sum(estimate_block(r) for group in chosen.values() for r in group.values())
    return Microcompacted(rebuilt, cleared, saved, left, first_kept)


def fit_results_budget(
    blocks: list[Message], scratch_dir: Path | None, budget: int = MESSAGE_RESULTS_BUDGET_CHARS
) -> list[Message]:
    """The tool results of one message, the largest cut (or saved to a file) until together they fit ``budget``
    characters. Blocks are copied where changed."""
    sizes = [_result_chars(block) if block.get("type") == "tool_result" else 0 for block in blocks]
    total = sum(sizes)
    if total <= budget:
        return blocks
    out = list(blocks)
    for index in sorted(range(len(blocks)), key=lambda i: sizes[i], reverse=True):
        if total <= budget:
            break
        block = blocks[index]
        if sizes[index] == 0 or not isinstance(block.get("content"), str):
            continue
        others = total - sizes[index]
        share = max(budget - others, budget // max(1, len(blocks)), 1_000)
        cut = limit_result(block["content"], str(block.get("tool_use_id")), scratch_dir, share)
        out[index] = {**block, "content": cut}
        total = others + len(cut)
    return out
