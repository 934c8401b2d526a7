"""The messages of a compaction: what the summary request asks, where the kept tail starts, and the first user
message of the new history (summary, the user's own words, todos, files read; the user context goes back at its head).

Pure functions of the history and the session's state, so the chain in :mod:`agentcli.context.compact` stays about
*when*, and this module about *what*.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcli.context.tokens import estimate_message, estimate_text

Message = dict[str, Any]

SUMMARY_INSTRUCTION = """\
Your task now is to write a summary of the conversation so far, so that the work can continue from it after the \
earlier messages are removed from your context. Do not call any tools; answer with the summary alone.

Use these sections, and be specific (file paths, function names, commands, error messages):

1. Primary requests and intent: everything the user asked for, in order.
2. Key decisions and technical concepts.
3. Files and code: every file read, created or changed, and why it matters; include short snippets where they \
carry a decision.
4. Errors and fixes: what went wrong and how it was fixed.
5. The user's corrections and instructions: quote every correction, preference or rule the user gave, VERBATIM, \
in quotation marks. These must survive word for word.
6. Pending tasks: what was asked and is not done yet.
7. Current work: what was being done right before this summary, and the exact next step."""

SUMMARY_HEADER = (
    "This session continues an earlier conversation that ran out of context. The summary below covers it; "
    "continue the work from where it stopped without asking the user to repeat anything."
)
PROMPT_TAG = "user-message"
PROMPTS_NOTE = "The user's own messages so far, verbatim (oldest first; the most recent ones if there were many):"
REMINDER = "<system-reminder>\n{}\n</system-reminder>"
MAX_PROMPT_CHARS = 4_000
"""One user message kept whole up to this; a longer one keeps its start and end."""
KEEP_TAIL_MESSAGES = 6
"""The last few messages stay verbatim after a compaction (when they fit the tail budget)."""
MAX_RECENT_FILES = 5
_INJECTED_PREFIXES = ("<system-reminder>", "Output token limit hit.", "[Request interrupted by user]")


def summary_request_messages(messages: list[Message], focus: str | None) -> list[Message]:
    """The history as it was sent (so the request reads it from the cache) plus the summary instruction."""
    instruction = SUMMARY_INSTRUCTION
    if focus:
        instruction += f"\n\nThe user asked this summary to focus on: {focus}"
    return [*messages, {"role": "user", "content": [{"type": "text", "text": instruction}]}]


def is_summary_request(body: dict[str, Any]) -> bool:
    """Whether a request body (as sent) is a compaction's summary request."""
    messages = body.get("messages") or []
    content = messages[-1].get("content") if messages else None
    return (
        isinstance(content, list)
        and bool(content)
        and str(content[-1].get("text", "")).startswith(SUMMARY_INSTRUCTION[:80])
    )


def safe_starts(messages: list[Message]) -> list[int]:
    """Indexes where a slice of the history may start without separating a tool_use from its tool_result: an
    assistant message, or a user message that answers no tool call."""
    starts = []
    for index, message in enumerate(messages):
        content = message.get("content")
        answers = isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content
        )
        if message.get("role") == "assistant" or not answers:
            starts.append(index)
    return starts


def tail_start(messages: list[Message], budget_tokens: int, keep: int = KEEP_TAIL_MESSAGES) -> int:
    """Where the kept tail begins: the latest safe start that keeps at most ``keep`` messages within
    ``budget_tokens``; ``len(messages)`` (nothing kept) when no such start exists."""
    best = len(messages)
    sizes = 0
    starts = set(safe_starts(messages))
    for index in range(len(messages) - 1, max(-1, len(messages) - 1 - keep), -1):
        sizes += estimate_message(messages[index])
        if sizes > budget_tokens:
            break
        if index in starts and index > 0:
            best = index
    return best


def drop_oldest(messages: list[Message], share: float) -> list[Message]:
    """The history without roughly its oldest ``share``, cut at a safe start, for a summary request that itself
    does not fit; the summary then covers what is left, and the user's own messages are kept separately."""
    target = int(len(messages) * share)
    for index in safe_starts(messages):
        if index >= max(target, 1):
            head = [{"role": "user", "content": "(The earliest part of this conversation was left out.)"}]
            return head + messages[index:] if messages[index]["role"] == "assistant" else messages[index:]
    return messages[-1:] if messages and messages[-1]["role"] == "user" else []


def summary_text(content: list[Message]) -> str:
    return "\n".join(b.get("text", "") for b in content if b.get("type") == "text").strip()


def user_prompts(messages: list[Message]) -> list[str]:
    """What the user typed, in order: plain prompts, plus those an earlier compaction carried over."""
    prompts: list[str] = []
    open_tag, close_tag = f"<{PROMPT_TAG}>\n", f"\n</{PROMPT_TAG}>"
    for message in messages:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        if blocks and str(blocks[0].get("text", "")).startswith(SUMMARY_HEADER):
            for block in blocks:
                text = str(block.get("text", ""))
                if text.startswith(open_tag) and text.endswith(close_tag):
                    prompts.append(text[len(open_tag) : -len(close_tag)])
            continue
        for block in blocks:
            text = str(block.get("text") or "") if isinstance(block, dict) and block.get("type") == "text" else ""
            if text and text.strip() and not text.startswith(_INJECTED_PREFIXES):
                prompts.append(text)
    return prompts


def _bounded(text: str, limit: int = MAX_PROMPT_CHARS) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[… {len(text) - limit} characters of this message left out …]\n{text[-half:]}"


def _recent_prompts(prompts: list[str], budget_tokens: int) -> list[str]:
    kept: list[str] = []
    used = 0
    for prompt in reversed(prompts):
        text = _bounded(prompt)
        used += estimate_text(text)
        if used > budget_tokens and kept:
            break
        kept.append(text)
    return list(reversed(kept))


def _todo_text(todos: list[dict[str, Any]]) -> str | None:
    if not todos:
        return None
    lines = [f"- [{item.get('status', 'pending')}] {item.get('content', '')}" for item in todos]
    return "The current todo list (keep it up to date with TodoWrite):\n" + "\n".join(lines)


def _files_text(paths: list[str], budget_tokens: int, tail: list[Message]) -> str | None:
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


def continuation_message(
    summary: str,
    prompts: list[str],
    *,
    todos: list[dict[str, Any]],
    read_files: list[str],
    tail: list[Message],
    budget_tokens: int,
) -> Message:
    """The first user message after a compaction. ``budget_tokens`` bounds the user's messages and, separately,
    the files read again; the summary is always whole (memory files come back with the user context)."""
    blocks = [{"type": "text", "text": f"{SUMMARY_HEADER}\n\n<summary>\n{summary}\n</summary>"}]
    kept = _recent_prompts(prompts, budget_tokens)
    if kept:
        blocks.append({"type": "text", "text": PROMPTS_NOTE})
        blocks += [{"type": "text", "text": f"<{PROMPT_TAG}>\n{text}\n</{PROMPT_TAG}>"} for text in kept]
    for extra in (_todo_text(todos), _files_text(read_files, budget_tokens, tail)):
        if extra:
            blocks.append({"type": "text", "text": REMINDER.format(extra)})
    return {"role": "user", "content": blocks}
