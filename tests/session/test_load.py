"""Repair on load: torn and bad lines, dangling tool calls, display-only lines, and hostile files."""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.session.load import INTERRUPTED, load_transcript
from agentcli.session.resume import open_session
from agentcli.testing.validate import validate_request
from tests.conftest import collect
from tests.messages import typed
from tests.session.conftest import read_lines, text_turn

SID = "3b8f0d7e-1c2a-4e5f-9a6b-7c8d9e0f1a2b"


def _user(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "user", "uuid": str(uuid.uuid4()), "message": {"role": "user", "content": text}, **extra}


def _assistant(*blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "type": "assistant",
        "uuid": str(uuid.uuid4()),
        "message": {
            "id": f"msg_{uuid.uuid4().hex[:8]}",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": list(blocks),
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
        **extra,
    }


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _use(tool_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "Read", "input": {"file_path": "/tmp/x"}}


def _result(tool_id: str, content: str = "ok", **extra: Any) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": str(uuid.uuid4()),
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": content}]},
        **extra,
    }


def _valid(messages: list[dict[str, Any]], prompt: str = "next") -> list[str]:
    body = {
        "model": "claude-sonnet-5-5",
        "max_tokens": 1000,
        "stream": True,
        "messages": [*messages, {"role": "user", "content": prompt}],
    }
    return validate_request(json.loads(json.dumps(body)))


def test_torn_last_line_is_skipped_with_a_warning_and_sealed_on_resume(write_transcript, project):
    good = [_user("hello"), _assistant(_text("hi"))]
    raw = json.dumps(_user("cut off")).encode()
    path = write_transcript(SID, [*good, raw[: len(raw) // 2]])
    transcript = load_transcript(path)
    assert transcript.torn_tail
    assert len(transcript.warnings) == 1 and "line 3 was cut off" in transcript.warnings[0]
    assert transcript.messages == [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": [_text("hi")]},
    ]
    before = path.read_bytes()
    session = open_session(project, resume=SID)
    session.close()
    after = path.read_bytes()
    assert after.startswith(before)  # append only
    assert after[len(before) : len(before) + 1] == b"\n"
    again = load_transcript(path)
    assert again.warnings == [] and again.messages == transcript.messages
    note = read_lines_skipping_bad(path)[-1]
    assert note["subtype"] == "transcript_repair" and note["skippedLines"] == [3]


def read_lines_skipping_bad(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_bytes().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def test_bad_middle_line_is_reported_by_number_and_the_rest_loads(write_transcript):
    path = write_transcript(
        SID,
        [
            _user("one"),
            _assistant(_text("a")),
            "{not json",
            '["a list"]',
            {"type": "user", "message": 5},
            _user("two"),
            _assistant(_text("b")),
        ],
    )
    transcript = load_transcript(path)
    assert [w.split(": ", 1)[1].split(" is")[0] for w in transcript.warnings] == ["line 3", "line 4", "line 5"]
    assert [m["content"] for m in transcript.messages if m["role"] == "user"] == ["one", "two"]
    assert _valid(transcript.messages) == []


def test_dangling_tool_use_gets_an_interrupted_result_that_is_persisted(write_transcript, project):
    path = write_transcript(SID, [_user("go"), _assistant(_text("reading"), _use("toolu_1"), _use("toolu_2"))])
    transcript = load_transcript(path)
    assert [b["id"] for b in transcript.dangling] == ["toolu_1", "toolu_2"]
    last = transcript.messages[-1]
    assert last == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": INTERRUPTED, "is_error": True},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": INTERRUPTED, "is_error": True},
        ],
    }
    assert any("check whether they took effect" in w for w in transcript.warnings)
    assert _valid(transcript.messages) == []
    session = open_session(project, resume=SID)
    session.close()
    assert session.messages == transcript.messages
    lines = read_lines(path)
    assert lines[-1]["type"] == "user" and lines[-1]["isSynthetic"] is True
    assert lines[-1]["parentUuid"] == lines[-2]["uuid"]
    again = load_transcript(path)
    assert again.dangling == [] and again.warnings == []
    assert json.dumps(again.messages) == json.dumps(transcript.messages)


def test_partial_results_are_completed_in_tool_use_order(write_transcript, project):
    path = write_transcript(
        SID, [_user("go"), _assistant(_use("t1"), _use("t2"), _use("t3")), _result("t1", "one"), _result("t2", "two")]
    )
    transcript = load_transcript(path)
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "user"]
    blocks = transcript.messages[-1]["content"]
    assert [(b["tool_use_id"], b["content"]) for b in blocks] == [("t1", "one"), ("t2", "two"), ("t3", INTERRUPTED)]
    open_session(project, resume=SID).close()
    again = load_transcript(path)
    assert again.messages == transcript.messages and again.warnings == []


def test_api_error_messages_sub_agent_lines_and_orphans_are_not_sent(write_transcript):
    error = _assistant(_text("API Error: overloaded"), isApiErrorMessage=True)
    path = write_transcript(
        SID,
        [
            _user("one"),
            error,
            _user("two"),
            _assistant(_use("t1")),
            _user("sub-agent prompt", parent_tool_use_id="t1"),
            _assistant(_text("nested"), parent_tool_use_id="t1"),
            _result("t1"),
            _result("t-unknown"),
            _assistant(_text("done")),
        ],
    )
    transcript = load_transcript(path)
    sent = json.dumps(transcript.messages)
    assert "API Error" not in sent and "nested" not in sent and "t-unknown" not in sent
    assert [m["role"] for m in transcript.messages] == ["user", "user", "assistant", "user", "assistant"]
    assert any("line 8" in w for w in transcript.warnings)  # the orphan result
    assert _valid(transcript.messages) == []


def test_compact_boundary_starts_the_history_again(write_transcript):
    path = write_transcript(
        SID,
        [
            _user("old"),
            _assistant(_text("old answer")),
            {"type": "system", "subtype": "compact_boundary", "uuid": str(uuid.uuid4())},
            _user("Summary of the conversation so far", isCompactSummary=True),
            _assistant(_text("ok")),
        ],
    )
    transcript = load_transcript(path)
    assert transcript.messages[0]["content"] == "Summary of the conversation so far"
    assert len(transcript.messages) == 2


def test_a_history_that_lost_its_first_prompt_still_starts_with_the_user(write_transcript):
    path = write_transcript(SID, ["{torn", _assistant(_text("answer")), _user("more")])
    transcript = load_transcript(path)
    assert transcript.messages[0]["role"] == "user"
    assert _valid(transcript.messages) == []


def test_duplicated_lines_are_read_once(write_transcript):
    lines = [_user("one"), _assistant(_use("t1")), _result("t1")]
    path = write_transcript(SID, [*lines, *lines, _assistant(_text("end"))])
    transcript = load_transcript(path)
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "user", "assistant"]
    assert _valid(transcript.messages) == []


async def test_resumed_engine_request_passes_validation(fake_api, make_engine, tool_session, transcripts):
    server = fake_api(tool_session)
    engine = make_engine(server)
    await collect(engine, "first")
    engine.config.recorder.close()  # that run ended: its lock on the session is released
    path = transcripts()[0]
    # Cut the file inside the second assistant message's tool call: the crash case.
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:5]) + lines[5][:40])
    resumed_server = fake_api({"turns": [text_turn("resumed fine")]})
    resumed = make_engine(resumed_server, resume=engine.session_id)
    messages = await collect(resumed, "carry on")
    assert messages[-1]["subtype"] == "success"
    body = resumed_server.requests[0].body
    assert typed(body["messages"])[0]["content"] == "first"
    assert typed(body["messages"])[-1]["content"] == "carry on"


# -- hostile files ----------------------------------------------------------------------------------------------

GARBAGE = [
    b"",
    b"   ",
    b"\x00\x01\xff\xfe",
    b"null",
    b"42",
    b'"a string"',
    b"[1, 2, 3]",
    b"{}",
    b'{"type": 7}',
    b'{"type": "user"}',
    b'{"type": "user", "message": null}',
    b'{"type": "user", "message": {"content": 5}}',
    b'{"type": "user", "message": {"role": "user", "content": ""}}',
    b'{"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": ""}]}}',
    b'{"type": "user", "message": {"role": "user", "content": [5]}}',
    b'{"type": "user", "message": {"role": "assistant", "content": "role swap"}}',
    b'{"type": "assistant", "message": {"content": "text, not blocks"}}',
    b'{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "bad id", "name": "R", "input": {}}]}}',
    b'{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "ok", "name": "R", "input": []}]}}',
    b'{"type": "assistant", "message": {"content": [{"type": "thinking", "thinking": "x"}]}}',
    b'{"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": 5}]}}',
    b'{"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "x", "is_error": "yes"}]}}',
    b'{"type": "user", "uuid": 12, "message": {"role": "user", "content": "uuid of the wrong type"}}',
    b'{"type": "system", "subtype": "transcript_repair", "skippedLines": "all"}',
    b"[" * 100_000 + b"]" * 100_000,
    b'{"type": "user", "message": {"role": "user", "content": "' + b"x" * 3_000_000 + b'"}}',
    b'{"type":"user","message":{"role":"user","content":"\\ud800 lone surrogate"}}',
]


def _base_lines() -> list[bytes]:
    entries = [
        _user("start"),
        _assistant(_text("a"), _use("t1"), _use("t2")),
        _result("t1"),
        _result("t2"),
        _assistant(_use("t3")),
        _result("t3"),
        _user("again"),
        _assistant(_text("b")),
        _assistant(_text("x"), isApiErrorMessage=True),
        _user("last"),
        _assistant(_use("t4")),
    ]
    return [json.dumps(e).encode() for e in entries]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(st.data())
def test_line_level_damage_never_crashes_and_always_gives_a_valid_request(write_transcript, data):
    lines = _base_lines()
    for _ in range(data.draw(st.integers(0, 6))):
        action = data.draw(st.sampled_from(["drop", "dup", "swap", "garbage", "cut"]))
        if not lines:
            break
        at = data.draw(st.integers(0, len(lines) - 1))
        if action == "drop":
            del lines[at]
        elif action == "dup":
            lines.insert(at, lines[at])
        elif action == "swap":
            other = data.draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
        elif action == "garbage":
            lines.insert(at, data.draw(st.sampled_from(GARBAGE)))
        else:
            lines[at] = lines[at][: data.draw(st.integers(0, len(lines[at])))]
    ending = b"\n" if data.draw(st.booleans()) else b""
    path = write_transcript(SID, b"\n".join(lines) + ending)
    transcript = load_transcript(path)
    assert _valid(transcript.messages) == [], transcript.messages


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(st.integers(0, 2**32), st.integers(1, 40))
def test_random_byte_damage_never_crashes(write_transcript, project, seed, flips):
    rng = random.Random(seed)
    data = bytearray(b"\n".join(_base_lines()) + b"\n")
    for _ in range(flips):
        data[rng.randrange(len(data))] = rng.randrange(256)
    path = write_transcript(SID, bytes(data))
    transcript = load_transcript(path)
    assert all(m["role"] in ("user", "assistant") for m in transcript.messages)
    session = open_session(project, resume=SID)  # repairs are appended without error
    session.close()


@pytest.mark.parametrize("garbage", GARBAGE, ids=range(len(GARBAGE)))
def test_each_kind_of_garbage_line_is_survived(write_transcript, garbage):
    path = write_transcript(SID, [_user("hello"), garbage, _assistant(_text("fine")), _user("more")])
    transcript = load_transcript(path)
    assert _valid(transcript.messages) == []
    assert transcript.messages[0]["content"] == "hello"


def test_fork_repairs_into_the_new_file_and_leaves_the_original(write_transcript, project):
    path = write_transcript(SID, [_user("go"), _assistant(_use("t1")), b'{"type":"us'])
    before = path.read_bytes()
    session = open_session(project, resume=SID, fork=True)
    session.close()
    assert session.session_id != SID and session.resumed_from == SID
    assert path.read_bytes() == before
    fork = load_transcript(path.with_name(f"{session.session_id}.jsonl"))
    assert fork.warnings == [] and fork.messages == session.messages
    assert fork.messages[-1]["content"][0]["content"] == INTERRUPTED
