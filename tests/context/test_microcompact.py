"""Microcompact and the per-message result budget: on copies, the most recent results whole, re-runnable tools
only, and only when it is worth it."""

from __future__ import annotations

import copy
from pathlib import Path

from agentcli.context.microcompact import (
    CLEARED_PREFIX,
    MESSAGE_RESULTS_BUDGET_CHARS,
    fit_results_budget,
    microcompact,
)


def _call(n: int, name: str = "Read", size: int = 5_000) -> list[dict]:
    return [
        {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}", "name": name, "input": {"n": n}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "x" * size}]},
    ]


def _history(*calls: list[dict]) -> list[dict]:
    out = [{"role": "user", "content": "go"}]
    for call in calls:
        out += call
    return out


def test_old_results_are_cleared_and_the_last_three_kept():
    history = _history(*(_call(n) for n in range(6)))
    before = copy.deepcopy(history)
    result = microcompact(history, 100)
    assert history == before, "the history it was given is not changed"
    assert result.cleared == 3
    results = [
        m["content"][0]["content"] for m in result.messages if m["role"] == "user" and m is not result.messages[0]
    ]
    assert [r.startswith(CLEARED_PREFIX) for r in results] == [True, True, True, False, False, False]
    assert 'Read {"n": 0}' in results[0] and "5,000 characters" in results[0]
    # unchanged messages are the same objects: nothing copied that need not be
    assert result.messages[-1] is history[-1]
    assert result.tokens_saved > 3_000


def test_other_tools_and_small_results_stay():
    history = _history(
        _call(0, "Edit"), _call(1, "Read", 500), _call(2, "mcp__db__query"), *(_call(n) for n in (3, 4, 5))
    )
    result = microcompact(history, 1)
    assert result.cleared == 1
    cleared = [m for m in result.messages if CLEARED_PREFIX in str(m["content"])]
    assert len(cleared) == 1 and "mcp__db__query" in str(cleared[0]["content"])


def test_nothing_happens_below_the_minimum_saving():
    history = _history(*(_call(n) for n in range(4)))
    unchanged = microcompact(history, 10_000)
    assert unchanged.cleared == 0 and unchanged.messages is history
    assert unchanged.large_tokens > 4 * 1_200, "all four large results still there"
    assert microcompact(_history(*(_call(n) for n in range(3))), 1).cleared == 0


def test_clearing_twice_changes_nothing_more():
    result = microcompact(_history(*(_call(n) for n in range(5))), 100)
    assert result.cleared == 2
    assert 3 * 1_200 < result.large_tokens < 3 * 1_300, "the three kept results"
    assert microcompact(result.messages, 100).cleared == 0


def test_the_results_of_one_message_fit_a_budget(tmp_path: Path):
    blocks = [{"type": "tool_result", "tool_use_id": f"t{n}", "content": str(n) * 45_000} for n in range(5)] + [
        {"type": "text", "text": "note"}
    ]
    fitted = fit_results_budget(blocks, None)
    assert sum(len(b.get("content", "")) for b in fitted) <= MESSAGE_RESULTS_BUDGET_CHARS + 1_000
    assert [b["tool_use_id"] for b in fitted[:5]] == [f"t{n}" for n in range(5)]
    assert blocks[0]["content"] == "0" * 45_000, "copies, not edits"
    saved = fit_results_budget(blocks, tmp_path)
    assert any("<persisted-output>" in b.get("content", "") for b in saved)
    small = blocks[:2]
    assert fit_results_budget(small, None) is small


def test_a_later_pass_can_start_where_the_large_results_begin():
    result = microcompact(_history(*(_call(n) for n in range(5))), 100)
    assert result.first_large == 6, "the result message of call 2 (the first kept whole)"
    grown = result.messages + _call(5) + _call(6)
    full = microcompact(grown, 100)
    partial = microcompact(grown, 100, start=result.first_large - 1)
    assert partial.messages == full.messages and partial.cleared == full.cleared == 2
    assert partial.large_tokens == full.large_tokens


def test_memory_that_arrived_with_a_result_outlives_it():
    reminder = {"type": "text", "text": "<system-reminder>\nRules of src/: tabs, never spaces.\n</system-reminder>"}
    history = _history(*(_call(n) for n in range(6)))
    first_result = history[2]["content"][0]
    history[2] = {
        "role": "user",
        "content": [{**first_result, "content": [{"type": "text", "text": "x" * 5_000}, reminder]}],
    }
    result = microcompact(history, 100)
    cleared = result.messages[2]["content"][0]["content"]
    assert cleared[0]["text"].startswith(CLEARED_PREFIX)
    assert cleared[1:] == [reminder]
