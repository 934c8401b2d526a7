"""The engine and loop end to end: the real SDK over HTTP to the fake Messages API, in process."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import collect
from tests.messages import system_text, typed


def _result(messages: list[dict]) -> dict:
    assert messages[-1]["type"] == "result"
    return messages[-1]


async def test_plain_text(fake_api, make_engine):
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "Hello, **world**!", "chunks": 7}]}]})
    engine = make_engine(server)
    messages = await collect(engine, "say hello")
    assert [m["type"] for m in messages] == ["system", "assistant", "result"]
    result = _result(messages)
    assert result["subtype"] == "success" and result["is_error"] is False
    assert result["result"] == "Hello, **world**!"
    assert result["num_turns"] == 1
    assert result["stop_reason"] == "end_turn"
    body = server.requests[0].body
    assert body["stream"] is True
    assert typed(body["messages"]) == [{"role": "user", "content": "say hello"}]
    assert body["model"] == "claude-sonnet-5-5"
    assert "agentcli" in system_text(body)
    assert {"Read", "Bash", "Edit", "Write", "Glob", "Grep"} <= {tool["name"] for tool in body["tools"]}


async def test_read_round_trip(fake_api, make_engine, project: Path):
    path = str(project / "src" / "app.py")
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {"type": "text", "text": "Let me look."},
                        {"type": "tool_use", "id": "toolu_read1", "name": "Read", "input": {"file_path": path}},
                    ]
                },
                {"content": [{"type": "text", "text": "It adds two numbers."}]},
            ]
        }
    )
    engine = make_engine(server)
    messages = await collect(engine, "what does app.py do?")
    result = _result(messages)
    assert result["subtype"] == "success", result
    assert result["result"] == "It adds two numbers."
    assert result["num_turns"] == 2
    tool_messages = [m for m in messages if m["type"] == "user"]
    assert len(tool_messages) == 1
    block = tool_messages[0]["message"]["content"][0]
    assert block["tool_use_id"] == "toolu_read1"
    assert block["content"] == "1\tdef add(a, b):\n2\t    return a + b"
    assert tool_messages[0]["tool_use_result"]["file"]["numLines"] == 2
    second = server.requests[1].body["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert second[2]["content"][0]["type"] == "tool_result"
    assert second[2]["content"][0]["content"] == block["content"]


async def test_tool_json_in_many_deltas_with_multibyte_characters(fake_api, make_engine, project: Path):
    folder = project / "données"
    folder.mkdir()
    target = folder / '漢字 "quoted" \\ 🎉.txt'
    target.write_text("é\n", encoding="utf-8")
    tool_input = {"file_path": str(target), "offset": 1, "limit": 5}
    turns = []
    for index, ensure_ascii in enumerate((False, True)):
        turns.append(
            {
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"toolu_mb{index}",
                        "name": "Read",
                        "input": tool_input,
                        "chunks": 60,
                        "ensure_ascii": ensure_ascii,
                    }
                ]
            }
        )
    turns.append({"content": [{"type": "text", "text": "done"}]})
    server = fake_api({"turns": turns})
    engine = make_engine(server, include_partial_messages=True)
    messages = await collect(engine, "read it")
    assert _result(messages)["subtype"] == "success"
    deltas = [m for m in messages if m["type"] == "stream_event" and m["event"]["type"] == "content_block_delta"]
    assert len(deltas) >= 100
    assistants = [m for m in messages if m["type"] == "assistant"]
    assistant_inputs = [m["message"]["content"][0]["input"] for m in assistants[:2]]
    assert assistant_inputs == [tool_input, tool_input]
    results = [m["message"]["content"][0] for m in messages if m["type"] == "user"]
    assert [r["content"] for r in results] == ["1\té", "1\té"]
    assert not any(r.get("is_error") for r in results)
    # the history repeats the tool input exactly as it was parsed
    assert server.requests[2].body["messages"][3]["content"][0]["input"] == tool_input


async def test_thinking_block_sent_back_byte_for_byte(fake_api, make_engine, project: Path):
    thinking = 'Let me think… about "quotes" and ünïcödé 🎉\nline two'
    signature = "EqQBCkgIARABGAIiQL" + "x" * 200
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {"type": "thinking", "thinking": thinking, "signature": signature, "chunks": 9},
                        {"type": "redacted_thinking", "data": "opaque-redacted-data"},
                        {
                            "type": "tool_use",
                            "id": "toolu_t1",
                            "name": "Read",
                            "input": {"file_path": str(project / "README.md")},
                        },
                    ]
                },
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    engine = make_engine(server)
    await collect(engine, "think first")
    sent_back = server.requests[1].body["messages"][1]["content"]
    assert sent_back[0] == {"type": "thinking", "thinking": thinking, "signature": signature}
    assert sent_back[1] == {"type": "redacted_thinking", "data": "opaque-redacted-data"}
    # byte for byte: the JSON of the first assistant message is identical in every later request
    first = json.dumps(server.requests[1].body["messages"][1], sort_keys=True)
    assert first == json.dumps(engine.messages[1], sort_keys=True)


async def test_max_turns_ends_with_error_and_answers_every_tool_use(fake_api, make_engine, project: Path):
    read = {"type": "tool_use", "name": "Read", "input": {"file_path": str(project / "README.md")}}
    server = fake_api(
        {
            "turns": [
                {"content": [{**read, "id": "toolu_a"}]},
                {"content": [{**read, "id": "toolu_b"}]},
                {"content": [{**read, "id": "toolu_c"}]},
            ]
        }
    )
    engine = make_engine(server, max_turns=2)
    messages = await collect(engine, "loop")
    result = _result(messages)
    assert result["subtype"] == "error_max_turns" and result["is_error"] is True
    assert result["num_turns"] == 2
    assert len(server.requests) == 2
    # the conversation stays valid: the last assistant tool_use has its result
    assert engine.messages[-1]["role"] == "user"
    assert engine.messages[-1]["content"][0]["tool_use_id"] == "toolu_b"


async def test_budget_stops_the_run(fake_api, make_engine, project: Path):
    read = {"type": "tool_use", "name": "Read", "input": {"file_path": str(project / "README.md")}}
    usage = {"input_tokens": 100_000, "output_tokens": 1_000}
    server = fake_api(
        {
            "turns": [
                {"content": [{**read, "id": "toolu_1"}], "usage": usage},
                {"content": [{**read, "id": "toolu_2"}], "usage": usage},
                {"content": [{"type": "text", "text": "never"}], "usage": usage},
            ]
        }
    )
    engine = make_engine(server, max_budget_usd=0.5)
    messages = await collect(engine, "spend")
    result = _result(messages)
    assert result["subtype"] == "error_max_budget_usd" and result["is_error"] is True
    # sonnet: 100k input * $3/M + 1k output * $15/M = $0.315 per turn; the second turn crosses $0.50
    assert abs(result["total_cost_usd"] - 0.63) < 1e-9
    assert len(server.requests) == 2
    assert unanswered(engine.messages) == []


def unanswered(messages: list[dict]) -> list[str]:
    from agentcli.loop.repair import unanswered_tool_uses

    return [block["id"] for block in unanswered_tool_uses(messages)]


async def test_usage_and_cost_are_summed_per_session(fake_api, make_engine):
    server = fake_api(
        {
            "turns": [
                {
                    "content": [{"type": "text", "text": "one"}],
                    "usage": {
                        "input_tokens": 1000,
                        "output_tokens": 10,
                        "cache_read_input_tokens": 500,
                        "cache_creation_input_tokens": 200,
                    },
                },
                {"content": [{"type": "text", "text": "two"}], "usage": {"input_tokens": 2000, "output_tokens": 20}},
            ]
        }
    )
    engine = make_engine(server, model="claude-haiku-5-5")
    first = _result(await collect(engine, "a"))
    second = _result(await collect(engine, "b"))
    assert first["usage"]["output_tokens"] == 10
    assert second["usage"] == {
        "input_tokens": 3000,
        "output_tokens": 30,
        "cache_creation_input_tokens": 200,
        "cache_read_input_tokens": 500,
    }
    expected = (3000 * 1 + 30 * 5 + 200 * 1.25 + 500 * 0.1) / 1_000_000
    assert abs(second["total_cost_usd"] - expected) < 1e-12
    assert second["modelUsage"]["claude-haiku-5-5"]["outputTokens"] == 30
    # the second request carries the whole conversation
    assert [m["role"] for m in server.requests[1].body["messages"]] == ["user", "assistant", "user"]


async def test_unknown_model_costs_nothing_and_is_flagged(fake_api, make_engine):
    server = fake_api(
        {"turns": [{"content": [{"type": "text", "text": "hi"}], "usage": {"input_tokens": 10, "output_tokens": 5}}]}
    )
    engine = make_engine(server, model="local-llama")
    result = _result(await collect(engine, "hi"))
    assert result["total_cost_usd"] == 0
    assert result["unpriced_models"] == ["local-llama"]


async def test_invalid_tool_input_is_explained_to_the_model(fake_api, make_engine):
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_bad",
                            "name": "Read",
                            "input": {"offset": "ten", "bogus": True},
                        }
                    ]
                },
                {"content": [{"type": "text", "text": "sorry"}]},
            ]
        }
    )
    engine = make_engine(server)
    messages = await collect(engine, "read")
    block = next(m for m in messages if m["type"] == "user")["message"]["content"][0]
    assert block["is_error"] is True
    assert block["content"] == (
        "<tool_use_error>Read failed due to the following issues:\n"
        "The required parameter `file_path` is missing\n"
        "An unexpected parameter `bogus` was provided\n"
        "The parameter `offset` type is expected as `number` but provided as `string`</tool_use_error>"
    )
    assert _result(messages)["subtype"] == "success"


async def test_unknown_tool_and_denied_read_outside_project(fake_api, make_engine, tmp_path: Path):
    outside = tmp_path / "secret.txt"
    outside.write_text("s3cret")
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {"type": "tool_use", "id": "toolu_x", "name": "Teleport", "input": {}},
                        {"type": "tool_use", "id": "toolu_y", "name": "Read", "input": {"file_path": str(outside)}},
                    ]
                },
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    engine = make_engine(server)
    messages = await collect(engine, "go")
    blocks = [b for m in messages if m["type"] == "user" for b in m["message"]["content"]]
    assert [b["tool_use_id"] for b in blocks] == ["toolu_x", "toolu_y"]
    assert "No such tool available: Teleport" in blocks[0]["content"]
    assert "denied" in blocks[1]["content"] and "s3cret" not in blocks[1]["content"]
    result = _result(messages)
    assert result["permission_denials"] == [
        {"tool_name": "Read", "tool_use_id": "toolu_y", "tool_input": {"file_path": str(outside)}}
    ]


async def test_api_error_ends_the_run_with_an_error_result(fake_api, make_engine):
    server = fake_api(
        {
            "turns": [
                {"fault": {"kind": "http", "status": 400, "message": "something is off"}},
            ]
        }
    )
    engine = make_engine(server)
    messages = await collect(engine, "hi")
    result = _result(messages)
    assert result["subtype"] == "error_during_execution" and result["is_error"] is True
    assert "something is off" in result["errors"][-1]
    shown = [m for m in messages if m.get("isApiErrorMessage")]
    assert shown and "something is off" in shown[0]["message"]["content"][0]["text"]
    # the API refused the request: the turn is taken back, so the next prompt does not carry it
    assert engine.messages == []


async def test_dropped_stream_after_a_tool_use_is_retried_without_duplicates(fake_api, make_engine, project: Path):
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_d",
                            "name": "Read",
                            "input": {"file_path": str(project / "README.md")},
                        },
                        {"type": "text", "text": "and some more text that never arrives", "chunks": 10},
                    ],
                    "fault": {"kind": "drop", "after_events": 8},
                },
                {"content": [{"type": "text", "text": "second try"}]},
            ]
        }
    )
    engine = make_engine(server, include_partial_messages=True)
    messages = await collect(engine, "read")
    result = _result(messages)
    assert result["subtype"] == "success" and result["result"] == "second try"
    retries = [m for m in messages if m.get("subtype") == "api_retry"]
    assert len(retries) == 1 and retries[0]["error"] == "connection_error" and retries[0]["attempt"] == 1
    assert any(m.get("subtype") == "stream_discarded" for m in messages)
    # the dropped attempt's tool call never ran and never entered the conversation
    assert not any(m["type"] == "user" for m in messages)
    assert typed(engine.messages) == [
        {"role": "user", "content": "read"},
        {"role": "assistant", "content": [{"type": "text", "text": "second try"}]},
    ]
    assert typed(server.requests[1].body["messages"]) == [{"role": "user", "content": "read"}]


class ExplodingClient:
    """The real client, except that it raises a bug-like error after the first finished block."""

    def __init__(self, inner):
        self.inner = inner

    async def stream(self, request):
        async for event in self.inner.stream(request):
            yield event
            if event["type"] == "content_block_stop":
                raise RuntimeError("something nobody expected")

    async def aclose(self):
        await self.inner.aclose()


async def test_unexpected_error_gives_a_result_and_a_debug_log(fake_api, make_engine, project: Path, hermetic_home):
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_e",
                            "name": "Read",
                            "input": {"file_path": str(project / "README.md")},
                        },
                        {"type": "text", "text": "more"},
                    ]
                },
                {"content": [{"type": "text", "text": "recovered"}]},
            ]
        }
    )
    engine = make_engine(server)
    engine.config.client = ExplodingClient(engine.config.client)
    messages = await collect(engine, "go")
    result = _result(messages)
    assert result["subtype"] == "error_during_execution" and result["is_error"] is True
    assert "something nobody expected" in result["errors"][-1]
    logs = list((hermetic_home / "data" / "agentcli" / "debug").glob("*.log"))
    assert len(logs) == 1 and "Traceback" in logs[0].read_text() and oct(logs[0].stat().st_mode)[-3:] == "600"
    assert any(m.get("isApiErrorMessage") for m in messages)
    engine.config.client = engine.config.client.inner
    follow_up = _result(await collect(engine, "again"))
    assert follow_up["result"] == "recovered"


async def test_permission_mode_switch_reaches_the_policy_behind_hooks(fake_api, make_engine, project: Path):
    target = project / "note.txt"
    write = {"type": "tool_use", "name": "Write", "input": {"file_path": str(target), "content": "hi\n"}}
    server = fake_api(
        {
            "turns": [
                {"content": [{**write, "id": "toolu_w1"}]},
                {"content": [{"type": "text", "text": "denied"}]},
                {"content": [{**write, "id": "toolu_w2"}]},
                {"content": [{"type": "text", "text": "written"}]},
            ]
        }
    )
    hooks = json.dumps({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}})
    engine = make_engine(server, settings_flag=hooks)
    first = _result(await collect(engine, "write it"))
    assert first["permission_denials"] and not target.exists()
    engine.set_permission_mode("acceptEdits")
    second = _result(await collect(engine, "write it now"))
    assert second["result"] == "written" and target.read_text() == "hi\n"
    assert engine.config.hooks.runner.permission_mode == "acceptEdits"
