"""The messages of a compaction: what the summary request asks, where the kept tail starts, and the first user
message of the new history (summary, the user's own words, todos, files read; the user context goes back at its head).

Pure functions of the history and the session's state, so the chain in :mod:`agentcli.context.compact` stays about
*when*, and this module about *what*.
"""

from __future__ import annotations

from typing import Any

from agentcli.context.memory import MemoryFile
from agentcli.context.reattach import (
    MAX_SKILL_CHARS,
    REMINDER,
    files_text,
    fitting_memory,
    memory_block,
    plan_text,
    skill_blocks,
    todo_text,
)
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

COMPOSE_INSTRUCTION = (
    "The conversation opens with the summary of its earlier part. Your summary replaces that one: carry over "
    "everything in it that still matters, then add what happened after it. Write one summary, not a summary of "
    "a summary, and do not repeat the user's own messages: they are carried over verbatim separately."
)
SUMMARY_HEADER = (
    "This session continues an earlier conversation that ran out of context. The summary below covers it; "
    "continue the work from where it stopped without asking the user to repeat anything."
)
PROMPT_TAG = "user-message"
PROMPTS_NOTE = "The user's own messages so far, verbatim (oldest first; the most recent ones if there were many):"
MAX_PROMPT_CHARS = 4_000
"""One user message kept whole up to this; a longer one keeps its start and end (the cut is marked)."""
_CUT_NOTE = "\n[… {} characters of this message left out …]\n"
KEEP_TAIL_MESSAGES = 6
"""The last few messages stay verbatim after a compaction (when they fit the tail budget)."""
_INJECTED_PREFIXES = ("<system-reminder>", "Output token limit hit.", "[Request interrupted by user]")


def summary_request_messages(messages: list[Message], focus: str | None) -> list[Message]:
    """The history as it was sent (so the request reads it from the cache) plus the summary instruction; when
    the history starts from an earlier summary, the new one is asked to replace it rather than quote it."""
    instruction = SUMMARY_INSTRUCTION
    if messages and is_continuation(messages[0]):
        instruction += f"\n\n{COMPOSE_INSTRUCTION}"
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


def safe_starts(messages: list[Message], offset: int = 0) -> list[int]:
    """Indexes (counted from ``offset``) where a slice of the history may start without separating a tool_use from its
    tool_result: an assistant message, or a user message that answers no tool call."""
    return [
        index
        for index, message in enumerate(messages, offset)
        if message.get("role") == "assistant" or not _answers_tools(message)
    ]


def _answers_tools(message: Message) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def is_continuation(message: Message) -> bool:
    """Whether ``message`` is the first message of a compacted history (the user context may come before the
    summary in it)."""
    content = message.get("content")
    if message.get("role") != "user" or not isinstance(content, list):
        return False
    return any(isinstance(b, dict) and str(b.get("text", "")).startswith(SUMMARY_HEADER) for b in content)


def pending_prompt(messages: list[Message]) -> int | None:
    """The index of the prompt the next request is to answer (the history ends with it), or None. A compaction
    keeps it verbatim in the tail, whatever its size: it is the user's newest words, not yet read by the model."""
    last = messages[-1] if messages else None
    if last is None or last.get("role") != "user" or _answers_tools(last) or is_continuation(last):
        return None
    return len(messages) - 1


def tail_start(
    messages: list[Message], budget_tokens: int, keep: int = KEEP_TAIL_MESSAGES, pinned: int | None = None
) -> int:
    """Where the kept tail begins: the latest safe start that keeps at most ``keep`` messages within
    ``budget_tokens``; ``len(messages)`` (nothing kept) when no such start exists. The tail always begins at or
    before ``pinned`` (a message that must stay as it is)."""
    best = len(messages) if pinned is None else pinned
    sizes = 0
    starts = set(safe_starts(messages))
    for index in range(len(messages) - 1, max(-1, len(messages) - 1 - keep), -1):
        sizes += estimate_message(messages[index])
        if sizes > budget_tokens:
            break
        if index in starts and 0 < index < best:
            best = index
    return best


def summary_text(content: list[Message]) -> str:
    return "\n".join(b.get("text", "") for b in content if b.get("type") == "text").strip()


def user_prompts(messages: list[Message]) -> list[str]:
    """What the user typed, in order: plain prompts, plus those an earlier compaction carried over (only those:
    its summary, header and notes are not the user's words, and quoting them would nest a copy per compaction)."""
    prompts: list[str] = []
    open_tag, close_tag = f"<{PROMPT_TAG}>\n", f"\n</{PROMPT_TAG}>"
    for message in messages:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        if is_continuation(message):
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


def cut_middle(text: str, limit: int, note: str = _CUT_NOTE) -> str:
    """``text``, or its start and end with the cut marked (``note`` names how many characters went), in at most
    ``limit`` characters: a text cut once is left as it is by a second cut to the same limit."""
    if len(text) <= limit:
        return text
    keep = max(0, limit - len(note.format(f"{len(text):,}")))
    marker = note.format(f"{len(text) - keep:,}")  # no longer than the first: fewer characters left out
    head = keep // 2
    return f"{text[:head]}{marker}{text[len(text) - (keep - head) :]}"


def _recent_prompts(prompts: list[str], budget_tokens: int) -> list[str]:
    kept: list[str] = []
    used = 0
    for prompt in reversed(prompts):
        text = cut_middle(prompt, MAX_PROMPT_CHARS)
        used += estimate_text(text)
        if used > budget_tokens and kept:
            break
        kept.append(text)
    return list(reversed(kept))


def continuation_message(
    summary: str,
    prompts: list[str],
    *,
    todos: list[dict[str, Any]],
    read_files: list[str],
    tail: list[Message],
    budget_tokens: int,
    skills: list[str] | None = None,
    memory: list[MemoryFile] | None = None,
    permission_mode: str = "default",
) -> Message:
    """The first user message after a compaction. ``budget_tokens`` bounds the user's messages and, separately,
    what is put back for the work to go on (:mod:`agentcli.context.reattach`): the skills loaded (at most half),
    then the nested memory files given so far (those that fit: see :func:`reattached_memory`), then the files read
    last. The summary is always whole; the project's memory files come back with the user context."""
    blocks = [{"type": "text", "text": f"{SUMMARY_HEADER}\n\n<summary>\n{summary}\n</summary>"}]
    kept = _recent_prompts(prompts, budget_tokens)
    if kept:
        blocks.append({"type": "text", "text": PROMPTS_NOTE})
        blocks += [{"type": "text", "text": f"<{PROMPT_TAG}>\n{text}\n</{PROMPT_TAG}>"} for text in kept]
    carried, used = skill_blocks([cut_middle(text, MAX_SKILL_CHARS) for text in skills or []], budget_tokens // 2)
    given = reattached_memory(memory or [], budget_tokens - used)
    memory_text = memory_block(given)
    used += estimate_text(memory_text) if memory_text else 0
    for extra in (plan_text(permission_mode), todo_text(todos)):
        if extra:
            blocks.append({"type": "text", "text": REMINDER.format(extra)})
    blocks += [{"type": "text", "text": text} for text in carried]
    if memory_text:
        blocks.append({"type": "text", "text": memory_text})
    files = files_text(read_files, budget_tokens - used, tail)
    if files:
        blocks.append({"type": "text", "text": REMINDER.format(files)})
    return {"role": "user", "content": blocks}


def reattached_memory(memory: list[MemoryFile], budget_tokens: int) -> list[MemoryFile]:
    """The nested memory files a continuation with this budget (left after the skills) puts back."""
    return fitting_memory(memory, budget_tokens // 2)
