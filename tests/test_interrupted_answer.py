"""An interrupted answer is kept: the part that streamed stays in the history the model sees, followed by
"[Request interrupted by user]", and is in the transcript (so ``--continue`` shows it) and in ``/export``."""

from __future__ import annotations

import asyncio

from agentcli.config.paths import sessions_dir
from agentcli.engine import INTERRUPTED_MARKER
from agentcli.session.export import conversation_markdown
from agentcli.session.load import load_transcript
from tests.conftest import collect
from tests.messages import typed
from tests.waiting import DEADLINE_S, until

FULL = "".join(f"word{n} " for n in range(80))
MARKER = {"role": "user", "content": [{"type": "text", "text": INTERRUPTED_MARKER}]}


async def _interrupt_mid_answer(engine) -> list[dict]:
    seen: list[dict] = []

    async def run() -> None:
        async for message in engine.submit_message("tell me a story"):
            seen.append(message)

    task = asyncio.create_task(run())

    def text_deltas() -> int:
        return sum(1 for m in seen if m["type"] == "stream_event" and m["event"].get("type") == "content_block_delta")

    await until(lambda: text_deltas() >= 10, "part of the answer to stream", task=task)
    engine.interrupt()
    await asyncio.wait_for(task, DEADLINE_S)
    return seen


async def test_the_partial_answer_is_kept_and_marked(fake_api, make_engine, project):
    server = fake_api(
        {
            "turns": [
                # held after about a quarter of the answer: the interrupt surely lands before its end
                {"content": [{"type": "text", "text": FULL, "chunks": 80}], "hold_after_events": 24},
                {"content": [{"type": "text", "text": "Where was I?"}]},
            ]
        }
    )
    engine = make_engine(server, include_partial_messages=True)
    seen = await _interrupt_mid_answer(engine)
    assert seen[-1]["errors"] == ["Interrupted by user"]
    kept = [m for m in seen if m["type"] == "assistant"]
    assert len(kept) == 1
    partial = kept[0]["message"]["content"][0]["text"]
    assert partial and FULL.startswith(partial) and partial != FULL
    assert seen[-2]["type"] == "user" and seen[-2]["message"]["content"] == MARKER["content"]
    history = [
        {"role": "user", "content": "tell me a story"},
        {"role": "assistant", "content": [{"type": "text", "text": partial}]},
        MARKER,
    ]
    assert typed(engine.messages) == typed(history)

    follow_up = await collect(engine, "go on")
    assert follow_up[-1]["result"] == "Where was I?"
    assert typed(server.requests[1].body["messages"]) == typed([*history, {"role": "user", "content": "go on"}])

    # the transcript gives back the same history (what --continue resumes and shows), and /export has it all
    [path] = sessions_dir(project).glob("*.jsonl")
    assert typed(load_transcript(path).messages) == typed(
        [
            *history,
            {"role": "user", "content": "go on"},
            {"role": "assistant", "content": [{"type": "text", "text": "Where was I?"}]},
        ]
    )
    exported = conversation_markdown(engine.messages)
    assert f"## agentcli\n\n{partial}" in exported and INTERRUPTED_MARKER in exported


async def test_an_interrupt_before_any_text_adds_only_the_marker(fake_api, make_engine):
    server = fake_api(
        {
            "turns": [
                {"content": [{"type": "text", "text": "late"}], "first_byte_delay_ms": 3_600_000},
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    engine = make_engine(server)
    task = asyncio.create_task(collect(engine, "hello"))
    await until(lambda: server.requests, "the request", task=task)
    engine.interrupt()
    await asyncio.wait_for(task, DEADLINE_S)
    assert typed(engine.messages) == typed([{"role": "user", "content": "hello"}, MARKER])
    assert (await collect(engine, "again"))[-1]["result"] == "ok"
