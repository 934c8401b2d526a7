"""Long sessions against a small context window, end to end: the real SDK over HTTP to the fake Messages API,
whose usage numbers are estimates of what it was sent and which answers prompt-too-long past its window."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcli.context.compact_messages import SUMMARY_HEADER, is_summary_request
from tests.conftest import collect
from tests.context.sessions import (
    FILES,
    HOUSE_RULE,
    SUMMARY_CUE,
    WINDOW,
    answer_turn,
    own,
    read_turn,
    setup_project,
    summary_turn,
)
from tests.messages import first_text

CORRECTION = "No, that is wrong: count only the lines that start with 'x', and answer in French."
ANSWER = "Il y a 42 lignes. PINEAPPLE"
LONG_ANSWER = "Read it. " + "It holds numbered lines of lorem ipsum. " * 120
"""An answer long enough that a summary makes the history shorter."""


def _long_session(project: Path, summaries: list[dict[str, Any]]) -> dict[str, Any]:
    turns = [read_turn(project, 1), read_turn(project, 2), answer_turn("Counted the lines. PINEAPPLE")]
    turns += [read_turn(project, n) for n in range(3, FILES + 1)]
    turns.append(answer_turn(ANSWER))
    return {"context_window": WINDOW, "turns": turns + summaries}


def _kinds(messages: list[dict[str, Any]]) -> list[str]:
    return [m.get("subtype") or m["type"] for m in messages if m.get("subtype") in ("microcompact", "compact_boundary")]


async def test_microcompact_then_auto_compact_keeps_rules_and_corrections(fake_api, make_engine, project):
    setup_project(project)
    server = fake_api(_long_session(project, [summary_turn(), summary_turn(), summary_turn()]))
    engine = make_engine(server)

    first = await collect(engine, "Read the data files one by one and count their lines.")
    assert first[-1]["subtype"] == "success", first[-1]
    second = await collect(engine, CORRECTION)
    result = second[-1]
    assert result["subtype"] == "success", result
    assert result["result"] == ANSWER

    events = _kinds(first + second)
    assert "microcompact" in events and "compact_boundary" in events
    assert events.index("microcompact") < events.index("compact_boundary"), events
    # No request was ever too long for the window (the fake fixture also checks each was valid).
    assert [r.status for r in server.requests] == [200] * len(server.requests)

    summaries = [r.body for r in server.requests if is_summary_request(r.body)]
    assert summaries, "an automatic compaction asked the model for a summary"
    for body in summaries:
        sent = json.dumps(body)
        assert HOUSE_RULE in sent
    assert any(CORRECTION in json.dumps(body["messages"]) for body in summaries)

    boundary = next(m for m in second if m.get("subtype") == "compact_boundary")
    metadata = boundary["compact_metadata"]
    assert metadata["trigger"] == "auto"
    assert metadata["post_tokens"] < metadata["pre_tokens"]
    # After the last compaction, the conversation starts from the summary, which carries the rule and the
    # correction word for word.
    after = [r.body for r in server.requests if not is_summary_request(r.body)][-1]
    opening = json.dumps(after["messages"][0])
    assert SUMMARY_HEADER in opening and HOUSE_RULE in opening and json.dumps(CORRECTION)[1:-1] in opening
    assert "toolu_read_1" not in json.dumps(after["messages"])


async def test_breaker_stops_after_three_failed_compactions(fake_api, make_engine, project):
    setup_project(project)
    failing = {"fault": {"kind": "http", "status": 400, "message": "summary refused"}}
    failures = [{**failing, "when": {"last_user_text_contains": SUMMARY_CUE}} for _ in range(5)]
    server = fake_api(_long_session(project, failures))
    engine = make_engine(server)

    messages = await collect(engine, "Read the data files one by one and count their lines.")
    messages += await collect(engine, CORRECTION)
    # Two compactions failed, and the context reached the blocking limit: nothing more was sent.
    assert sum(1 for r in server.requests if is_summary_request(r.body)) == 2
    assert messages[-1]["is_error"] is True and "Nothing was sent" in messages[-1]["errors"][-1]
    sent = len(server.requests)

    third = await collect(engine, "Please go on.")
    assert len(server.requests) == sent + 1 and is_summary_request(server.requests[-1].body)
    warnings = [m["message"] for m in third if m.get("subtype") == "warning"]
    assert any("3 times in a row" in w and "stops trying" in w for w in warnings), warnings
    assert "paused" in third[-1]["errors"][-1]

    fourth = await collect(engine, "Go on, please.")
    assert len(server.requests) == sent + 1, "the breaker is open: no more summary requests"
    assert fourth[-1]["is_error"] is True and "paused" in fourth[-1]["errors"][-1]
    assert not any(m.get("subtype") == "compact_boundary" for m in messages + third + fourth)
    assert [r.status for r in server.requests if not is_summary_request(r.body)] == [200] * (sent - 2)


async def test_prompt_too_long_mid_session_recovers_with_one_compaction(fake_api, make_engine, project):
    setup_project(project, window=200_000)
    turns = [
        read_turn(project, 1),
        own({"fault": {"kind": "prompt_too_long", "tokens": 210_000, "maximum": 200_000}}),
        read_turn(project, 2),
        answer_turn("Done. PINEAPPLE"),
        summary_turn(),
    ]
    server = fake_api({"turns": turns})
    engine = make_engine(server)

    messages = await collect(engine, "Read two files.")
    assert messages[-1]["subtype"] == "success", messages[-1]
    assert messages[-1]["result"] == "Done. PINEAPPLE"
    assert next(m for m in messages if m.get("subtype") == "compact_boundary")["compact_metadata"]["trigger"] == "auto"
    assert sum(1 for m in messages if m.get("subtype") == "compact_boundary") == 1
    assert sum(1 for r in server.requests if is_summary_request(r.body)) == 1
    assert not any(m.get("isApiErrorMessage") for m in messages), "the withheld error never reached the face"
    statuses = [r.status for r in server.requests]
    assert statuses.count(400) == 1


async def test_manual_compact_with_focus(fake_api, make_engine, project):
    setup_project(project, window=200_000)
    server = fake_api({"turns": [read_turn(project, 1), answer_turn(LONG_ANSWER), summary_turn("Focused summary.")]})
    engine = make_engine(server)
    await collect(engine, "Read file one.")

    out = await engine.compact("the file contents")
    assert [m.get("subtype") for m in out][-2:] == ["compact_boundary", None]
    assert out[-2]["compact_metadata"]["trigger"] == "manual"
    body = next(r.body for r in server.requests if is_summary_request(r.body))
    assert "focus on: the file contents" in json.dumps(body["messages"][-1])
    assert first_text(engine.messages[0]).startswith(SUMMARY_HEADER)
    assert "Focused summary." in first_text(engine.messages[0])
    assert "Read file one." in json.dumps(engine.messages[0])


async def test_pre_compact_hooks_run_with_the_trigger_and_add_instructions(fake_api, make_engine, project, tmp_path):
    setup_project(project, window=200_000)
    seen = tmp_path / "hook-input.json"
    hooks = {
        "hooks": {
            "PreCompact": [
                {
                    "matcher": "manual",
                    "hooks": [{"type": "command", "command": f"cat > {seen}; echo 'Keep every number.'"}],
                },
                {"matcher": "auto", "hooks": [{"type": "command", "command": "echo 'never for manual'"}]},
            ]
        }
    }
    server = fake_api({"turns": [answer_turn(LONG_ANSWER), summary_turn("S.")]})
    engine = make_engine(server, settings_flag=json.dumps(hooks))
    await collect(engine, "Hi.")

    out = await engine.compact("the greeting")
    hook_input = json.loads(seen.read_text())
    assert hook_input["hook_event_name"] == "PreCompact"
    assert hook_input["trigger"] == "manual" and hook_input["custom_instructions"] == "the greeting"
    assert any(m.get("subtype") == "hook_summary" for m in out)
    instruction = json.dumps(next(r.body for r in server.requests if is_summary_request(r.body))["messages"][-1])
    assert "the greeting" in instruction and "Keep every number." in instruction
    assert "never for manual" not in instruction


async def test_a_pre_compact_hook_can_block_compaction(fake_api, make_engine, project):
    """Exit 2 (or ``decision: "block"``) stops this compaction: nothing is summarised, the history stays, the user
    is told why."""
    setup_project(project, window=200_000)
    hooks = {"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "echo 'not now' >&2; exit 2"}]}]}}
    server = fake_api({"turns": [answer_turn("Hello."), summary_turn("S.")]})
    engine = make_engine(server, settings_flag=json.dumps(hooks))
    await collect(engine, "Hi.")
    before = list(engine.messages)

    out = await engine.compact()
    assert not any(is_summary_request(r.body) for r in server.requests)
    assert engine.messages == before
    assert [m.get("subtype") for m in out] == ["warning"] and "not now" in out[0]["message"]


async def test_context_report_uses_the_settings_window_and_threshold(fake_api, make_engine, project):
    from agentcli.commands.reports import context_report

    setup_project(project, window=50_000)
    server = fake_api({"turns": [answer_turn("Hello.")]})
    engine = make_engine(server)
    await collect(engine, "Hi.")
    title, detail = context_report(engine)
    assert "of 50,000 tokens" in title
    assert "Automatic compaction at 33,750 tokens" in detail
    assert "System prompt" in detail and "Tool list" in detail and "Free" in detail
    # right after a response the count is the one the API reported (what the status bar shows)
    reported = server.requests[-1]
    assert reported.status == 200
    assert engine.conversation.exact_through == len(engine.messages)
