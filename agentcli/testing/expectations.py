"""Scenario expectations: lets a script assert the client really sent what the next reply assumes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentcli.testing.scenario import Expectation, Match


def _last_user_message(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == "user":
            return message
    return None


def _texts(content: Any, *, typed_only: bool = False) -> list[str]:
    """The text in ``content``; ``typed_only`` leaves out ``<system-reminder>`` blocks (context the client added)."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    out: list[str] = []
    for block in content:
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            if not (typed_only and block["text"].startswith("<system-reminder>")):
                out.append(block["text"])
        elif block.get("type") == "tool_result":
            out += _texts(block.get("content"))
    return out


def last_user_text(body: Mapping[str, Any], *, typed_only: bool = False) -> str:
    """All text of the last user message, tool_result text included, joined by newlines (``typed_only``: without
    the reminders the client added)."""
    message = _last_user_message(body)
    return "\n".join(_texts(message.get("content"), typed_only=typed_only)) if message is not None else ""


def _tool_result_ids(body: Mapping[str, Any]) -> set[str]:
    message = _last_user_message(body)
    content = message.get("content") if message is not None else None
    if not isinstance(content, list):
        return set()
    return {str(b.get("tool_use_id")) for b in content if isinstance(b, Mapping) and b.get("type") == "tool_result"}


def check_expectations(expect: Expectation | None, body: Mapping[str, Any]) -> list[str]:
    """Each unmet expectation as a violation string prefixed with `expectation: `."""
    if expect is None:
        return []
    problems: list[str] = []
    if expect.last_user_text_contains is not None:
        text = last_user_text(body)
        if expect.last_user_text_contains not in text:
            problems.append(
                f"expectation: last user text does not contain {expect.last_user_text_contains!r} (got {text[:200]!r})"
            )
    if expect.tool_result_for is not None:
        wanted = [expect.tool_result_for] if isinstance(expect.tool_result_for, str) else expect.tool_result_for
        present = _tool_result_ids(body)
        for tool_use_id in wanted:
            if tool_use_id not in present:
                problems.append(f"expectation: no tool_result for {tool_use_id!r} in the last user message")
    return problems


def _system_text(body: Mapping[str, Any]) -> str:
    system = body.get("system")
    return system if isinstance(system, str) else "\n".join(_texts(system))


def matches(when: Match | None, body: Mapping[str, Any]) -> bool:
    """Whether a turn's ``when`` accepts this request (a turn without one accepts any)."""
    if when is None:
        return True
    messages = body.get("messages")
    first = messages[0] if isinstance(messages, list) and messages else {}
    first_text = "\n".join(_texts(first.get("content"))) if isinstance(first, Mapping) else ""
    checks = (
        (when.system_contains, _system_text(body)),
        (when.first_user_text_contains, first_text),
        (when.last_user_text_contains, last_user_text(body)),
    )
    if when.last_user_text_excludes is not None and when.last_user_text_excludes in last_user_text(body):
        return False
    return all(needle in text for needle, text in checks if needle is not None)
