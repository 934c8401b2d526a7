"""The pieces of a compaction: where a kept tail may start, what the user said, the continuation message."""

from __future__ import annotations

from pathlib import Path

from agentcli.context.compact_messages import (
    SUMMARY_HEADER,
    continuation_message,
    safe_starts,
    tail_start,
    user_prompts,
)
from agentcli.context.fit import fit_history
from agentcli.context.tokens import estimate_message
from agentcli.testing.validate import validate_request


def _history() -> list[dict]:
    out: list[dict] = [{"role": "user", "content": "first prompt"}]
    for n in range(10):
        uses = [{"type": "tool_use", "id": f"t{n}_{k}", "name": "Read", "input": {"k": k}} for k in range(2)]
        out.append({"role": "assistant", "content": [{"type": "text", "text": f"step {n}"}, *uses]})
        out.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": u["id"], "content": "r" * 400} for u in uses],
            }
        )
        if n == 4:
            out.append({"role": "user", "content": "No: use tabs, not spaces."})
    return out


def _valid(messages: list[dict]) -> bool:
    return not validate_request({"model": "m", "max_tokens": 10, "messages": messages})


def test_no_cut_separates_a_tool_use_from_its_result():
    history = _history()
    starts = safe_starts(history)
    for index in range(1, len(history)):
        tail = history[index:]
        answers_open_call = tail[0]["role"] == "user" and isinstance(tail[0]["content"], list)
        assert (index in starts) != answers_open_call
        if index in starts:
            assert _valid([{"role": "user", "content": "summary"}, *tail])
    for budget in (0, 50, 200, 400, 10_000):
        start = tail_start(history, budget)
        assert start in starts or start == len(history)
        assert _valid([{"role": "user", "content": "summary"}, *history[start:]])
    total = sum(estimate_message(m) for m in history)
    for share in (0.25, 0.5, 0.9):
        fitted = fit_history(history, int(total * share))
        assert fitted is not None and _valid(fitted.messages)
        assert sum(estimate_message(m) for m in fitted.messages) <= total * share
    assert fit_history(history, 50) is None, "not even the last exchange fits: nothing is cut below the floor"


def test_user_prompts_are_the_users_words_and_survive_a_second_compaction(tmp_path: Path):
    history = _history()
    history[0] = {
        "role": "user",
        "content": [
            {"type": "text", "text": "first prompt"},
            {"type": "text", "text": "<system-reminder>\ncontext\n</system-reminder>"},
        ],
    }
    prompts = user_prompts(history)
    assert prompts == ["first prompt", "No: use tabs, not spaces."]
    notes = tmp_path / "notes.txt"
    notes.write_text("the notes\n", encoding="utf-8")
    first = continuation_message(
        "S1",
        prompts,
        todos=[{"content": "fix it", "status": "in_progress"}],
        read_files=[str(notes)],
        tail=[],
        budget_tokens=2_000,
    )
    text = "\n".join(block["text"] for block in first["content"])
    assert text.startswith(SUMMARY_HEADER) and "S1" in text
    assert "No: use tabs, not spaces." in text
    assert "[in_progress] fix it" in text and "the notes" in text
    # a second compaction carries the same words over, plus what came after
    later = [
        first,
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        {"role": "user", "content": "Also: no emoji."},
    ]
    assert user_prompts(later) == ["first prompt", "No: use tabs, not spaces.", "Also: no emoji."]


def test_long_prompts_are_bounded_and_the_latest_kept():
    prompts = [f"prompt {n} " + "y" * 10_000 for n in range(20)]
    message = continuation_message("S", prompts, todos=[], read_files=[], tail=[], budget_tokens=3_000)
    text = "\n".join(block["text"] for block in message["content"])
    assert "prompt 19 " in text and "prompt 0 " not in text
    assert len(text) < 40_000
