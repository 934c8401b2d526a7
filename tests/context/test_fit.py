"""Compaction that composes and fits, piece by piece: a continuation read back after the user context was put at
its head, cuts that are marked and never repeated, the prompt a compaction must keep, and a summary request sized
from what the API said it refused."""

from __future__ import annotations

from typing import Any

from agentcli.context.compact_messages import (
    MAX_PROMPT_CHARS,
    PROMPT_TAG,
    SUMMARY_HEADER,
    continuation_message,
    cut_middle,
    is_continuation,
    pending_prompt,
    summary_request_messages,
    tail_start,
    user_prompts,
)
from agentcli.context.fit import LEFT_OUT, Refusal, fit_history, refusal_sizes
from agentcli.context.tokens import estimate_message
from agentcli.context.user_context import prepend_user_context
from agentcli.testing.validate import validate_request


def _compacted(summary: str, history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    first = continuation_message(summary, user_prompts(history), todos=[], read_files=[], tail=[], budget_tokens=5_000)
    return prepend_user_context([first], "the user context")


def test_a_continuation_led_by_the_user_context_carries_only_the_users_words():
    """The n-th compaction reads the (n-1)-th continuation back: the user's messages once each, no header, no
    summary, nothing nested a level deeper."""
    history: list[dict[str, Any]] = [{"role": "user", "content": "Use tabs."}]
    for n in range(1, 6):
        history = _compacted(f"S{n}", history)
        history += [
            {"role": "assistant", "content": [{"type": "text", "text": f"answer {n}"}]},
            {"role": "user", "content": f"prompt {n}"},
        ]
    assert user_prompts(history) == ["Use tabs.", *(f"prompt {n}" for n in range(1, 6))]
    head = history[0]
    assert is_continuation(head) and head["content"][0]["text"].startswith("<system-reminder>")
    text = "\n".join(block["text"] for block in head["content"])
    assert text.count(SUMMARY_HEADER) == 1 and "S5" in text and "S4" not in text
    assert text.count(f"<{PROMPT_TAG}>") == 5 and f"<{PROMPT_TAG}>\n<{PROMPT_TAG}>" not in text


def test_the_summary_request_after_a_compaction_asks_for_one_summary():
    history = [*_compacted("S1", [{"role": "user", "content": "hi"}]), {"role": "user", "content": "more"}]
    instruction = summary_request_messages(history, None)[-1]["content"][0]["text"]
    assert "Your summary replaces that one" in instruction
    first = summary_request_messages([{"role": "user", "content": "hi"}], None)[-1]["content"][0]["text"]
    assert "replaces" not in first


def test_a_long_message_is_cut_once_and_the_cut_is_marked():
    text = "a" * 3_000 + "MIDDLE" + "z" * 3_000
    cut = cut_middle(text, MAX_PROMPT_CHARS)
    assert len(cut) <= MAX_PROMPT_CHARS and cut.startswith("aaa") and cut.endswith("zzz") and "MIDDLE" not in cut
    assert "characters of this message left out" in cut
    assert cut_middle(cut, MAX_PROMPT_CHARS) == cut, "a later compaction carries it over as it is"


def test_the_prompt_waiting_for_its_answer_stays_in_the_tail_whatever_its_size():
    big = {"role": "user", "content": "x" * 40_000}
    history = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        big,
    ]
    pinned = pending_prompt(history)
    assert pinned == 2
    assert tail_start(history, 10, pinned=pinned) == 2
    results = [*history[:2], {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "r"}]}]
    assert pending_prompt(results) is None
    assert pending_prompt(_compacted("S", history[:1])) is None


def _rounds(count: int, result_chars: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "user", "content": "Read everything."}]
    for n in range(count):
        use = {"type": "tool_use", "id": f"t{n}", "name": "Read", "input": {"n": n}}
        out.append({"role": "assistant", "content": [{"type": "text", "text": f"step {n}"}, use]})
        out.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "r" * result_chars}],
            }
        )
    return out


def _valid(messages: list[dict[str, Any]]) -> bool:
    return not validate_request({"model": "m", "max_tokens": 10, "messages": messages})


def test_oversized_results_of_the_oldest_rounds_are_trimmed_first():
    history = _rounds(6, 20_000)
    total = sum(estimate_message(m) for m in history)
    fitted = fit_history(history, total // 2)
    assert fitted is not None and fitted.left_out == 0 and 0 < fitted.trimmed < 6
    assert fitted.messages[-1] == history[-1], "the newest result is whole"
    assert "left out of this request" in fitted.messages[2]["content"][0]["content"]
    assert _valid(fitted.messages) and history[2]["content"][0]["content"] == "r" * 20_000


def test_then_the_oldest_rounds_are_left_out_after_an_earlier_summary():
    history = [*_compacted("S1", [{"role": "user", "content": "hi"}]), *_rounds(12, 1_000)[1:]]
    total = sum(estimate_message(m) for m in history)
    fitted = fit_history(history, total // 3)
    assert fitted is not None and fitted.left_out > 0
    assert fitted.messages[0] is history[0], "the earlier summary stays at the head"
    assert fitted.messages[1]["content"][0]["text"] == LEFT_OUT.format(count=fitted.left_out)
    assert fitted.messages[-1] == history[-1]
    assert sum(estimate_message(m) for m in fitted.messages) <= total // 3 and _valid(fitted.messages)


def test_the_room_after_a_refusal_is_below_the_refused_request_and_the_maximum():
    assert refusal_sizes("prompt is too long: 212345 tokens > 200000 maximum") == (212_345, 200_000)
    assert refusal_sizes("Overloaded") is None
    refusal = Refusal(tokens=212_345, maximum=200_000, estimate=170_000)
    room = refusal.room(20_000)
    assert room < refusal.estimate and room * refusal.ratio <= 200_000 - 20_000
    # A request refused although it was smaller than the maximum (the window was misjudged): still smaller.
    small = Refusal(tokens=12_528, maximum=200_000, estimate=12_000)
    assert small.room(20_000) < 12_000
