"""Sub-agents end to end: the model calls Task twice in one message and both sub-agents run at once against the
fake Messages API (a rendezvous there proves their requests overlapped)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agentcli.api.pricing import cost_usd
from tests.conftest import collect
from tests.messages import system_text, typed
from tests.processes import running_with, sleep_seconds
from tests.waiting import DEADLINE_S, until


def task(tool_id: str, prompt: str, agent: str = "general-purpose") -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": tool_id,
        "name": "Task",
        "input": {"description": f"Do {prompt[:10]}", "prompt": prompt, "subagent_type": agent},
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def sub_turn(prompt: str, content: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"when": {"first_user_text_contains": prompt}, "content": content, **extra}


def main_turn(content: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"when": {"first_user_text_contains": "delegate"}, "content": content, **extra}


def nested(messages: list[dict[str, Any]], parent: str) -> list[dict[str, Any]]:
    return [m for m in messages if m.get("parent_tool_use_id") == parent]


async def test_two_tasks_run_concurrently_and_answer_in_order(fake_api, make_engine):
    meet = {"name": "subagents", "parties": 2, "timeout_s": DEADLINE_S}  # however slow the second one is to come
    server = fake_api(
        {
            "turns": [
                main_turn(
                    [
                        text("Delegating."),
                        task("toolu_a", "alpha: count the files"),
                        task("toolu_b", "beta: read the readme"),
                    ],
                    usage={"input_tokens": 100, "output_tokens": 40},
                ),
                sub_turn(
                    "alpha:",
                    [text("alpha found 2 files")],
                    rendezvous=meet,
                    usage={"input_tokens": 1000, "output_tokens": 10},
                ),
                sub_turn(
                    "beta:",
                    [text("beta read the readme")],
                    rendezvous=meet,
                    usage={"input_tokens": 2000, "output_tokens": 20},
                ),
                main_turn(
                    [text("Both done.")],
                    usage={"input_tokens": 300, "output_tokens": 5},
                    expect={"tool_result_for": ["toolu_a", "toolu_b"]},
                ),
            ]
        }
    )
    engine = make_engine(server)
    messages = await collect(engine, "delegate both tasks")

    final_request = server.requests[-1].body
    results = [b for b in final_request["messages"][-1]["content"] if b.get("type") == "tool_result"]
    assert [(r["tool_use_id"], r["content"]) for r in results] == [
        ("toolu_a", "alpha found 2 files"),
        ("toolu_b", "beta read the readme"),
    ]
    assert not any(r.violations for r in server.requests)

    sub_requests = [r.body for r in server.requests if "Task" not in {t["name"] for t in r.body["tools"]}]
    assert len(sub_requests) == 2  # the sub-agents cannot start sub-agents of their own
    assert all(
        typed(body["messages"])[0]["content"] in ("alpha: count the files", "beta: read the readme")
        for body in sub_requests
    )

    [alpha] = nested(messages, "toolu_a")
    [beta] = nested(messages, "toolu_b")
    assert alpha["type"] == beta["type"] == "assistant"
    result = messages[-1]
    assert result["subtype"] == "success" and result["result"] == "Both done."
    expected = sum(
        cost_usd(m["message"]["model"], m["message"]["usage"]) or 0 for m in messages if m["type"] == "assistant"
    )
    assert result["total_cost_usd"] == pytest.approx(expected)
    assert result["usage"]["input_tokens"] == 100 + 1000 + 2000 + 300

    structured = {
        m["message"]["content"][0]["tool_use_id"]: m["tool_use_result"]
        for m in messages
        if m["type"] == "user" and "tool_use_result" in m
    }
    for tool_id, answer in (("toolu_a", "alpha found 2 files"), ("toolu_b", "beta read the readme")):
        side = Path(structured[tool_id]["transcriptPath"])
        assert side.is_file() and side.parent.name == "subagents"
        lines = [json.loads(line) for line in side.read_text().splitlines()]
        assert [line["type"] for line in lines] == ["user", "assistant"]
        assert lines[1]["message"]["content"][0]["text"] == answer
        assert all(line["isSidechain"] and line["sessionId"] == engine.session_id for line in lines)


async def test_interrupting_the_parent_stops_both_subagents(fake_api, make_engine, project: Path):
    """The sub-agents' commands run in the session's sandbox (their own pid numbers), so they are found from outside
    by their command lines."""
    markers = {name: sleep_seconds(29) for name in ("alpha", "beta")}

    def sleeper(name: str) -> dict[str, Any]:
        return {
            "type": "tool_use",
            "id": f"toolu_sleep_{name}",
            "name": "Bash",
            "input": {"command": f"touch {name}.started; sleep {markers[name]}"},
        }

    server = fake_api(
        {
            "turns": [
                main_turn([task("toolu_a", "alpha: wait"), task("toolu_b", "beta: wait")]),
                sub_turn("alpha:", [sleeper("alpha")]),
                sub_turn("beta:", [sleeper("beta")]),
            ]
        }
    )
    engine = make_engine(server, permission_mode="bypassPermissions")
    running = asyncio.create_task(collect(engine, "delegate the waiting"))
    await until(
        lambda: all((project / f"{name}.started").exists() and running_with(m) for name, m in markers.items()),
        "both commands",
        task=running,
    )
    engine.interrupt()
    messages = await asyncio.wait_for(running, DEADLINE_S)
    assert messages[-1]["subtype"] == "error_during_execution"
    assert not any(running_with(m) for m in markers.values())
    answered = [
        b
        for m in messages
        if m["type"] == "user" and m.get("parent_tool_use_id") is None
        for b in m["message"]["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    assert {b["tool_use_id"] for b in answered} == {"toolu_a", "toolu_b"}
    assert all(b["is_error"] for b in answered)
    assert len(server.requests) == 3  # no request after the interrupt


async def test_project_agent_definition_with_its_own_tools_and_model(fake_api, make_engine, project: Path):
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews code for bugs\ntools: Read, Grep\nmodel: haiku\n---\n"
        "You are a strict code reviewer.\n",
        encoding="utf-8",
    )
    server = fake_api(
        {
            "turns": [
                main_turn([task("toolu_r", "review: src/app.py", agent="reviewer")]),
                sub_turn("review:", [text("No bugs.")]),
                main_turn([text("Reviewed.")]),
            ]
        }
    )
    engine = make_engine(server)
    messages = await collect(engine, "delegate a review")
    assert "reviewer: Reviews code for bugs (Tools: Read, Grep)" in next(
        t["description"] for t in server.requests[0].body["tools"] if t["name"] == "Task"
    )
    sub = server.requests[1].body
    assert sub["model"] == "claude-haiku-5-5"
    assert sorted(t["name"] for t in sub["tools"]) == ["Grep", "Read"]
    assert system_text(sub).startswith("You are a strict code reviewer.")
    assert messages[-1]["result"] == "Reviewed."


async def test_unknown_agent_type_is_an_error_result(fake_api, make_engine):
    server = fake_api(
        {
            "turns": [
                main_turn([task("toolu_x", "x", agent="nobody")]),
                main_turn([text("ok")]),
            ]
        }
    )
    engine = make_engine(server)
    await collect(engine, "delegate")
    [result] = [b for b in server.requests[1].body["messages"][-1]["content"] if b.get("type") == "tool_result"]
    assert result["is_error"] and "Agent type 'nobody' not found" in result["content"]


async def test_subagent_start_and_stop_hooks(fake_api, make_engine, project: Path):
    def hook(name: str) -> list[dict[str, Any]]:
        return [{"hooks": [{"type": "command", "command": f"cat > {project / name}"}]}]

    settings = json.dumps({"hooks": {"SubagentStart": hook("start.json"), "SubagentStop": hook("stop.json")}})
    server = fake_api(
        {
            "turns": [
                main_turn([task("toolu_h", "hooked: say hi")]),
                sub_turn("hooked:", [text("hi")]),
                main_turn([text("done")]),
            ]
        }
    )
    engine = make_engine(server, settings_flag=settings)
    messages = await collect(engine, "delegate")
    start = json.loads((project / "start.json").read_text())
    stop = json.loads((project / "stop.json").read_text())
    assert start["hook_event_name"] == "SubagentStart" and start["agent_type"] == "general-purpose"
    assert stop["hook_event_name"] == "SubagentStop" and stop["agent_id"] == start["agent_id"]
    assert stop["last_assistant_message"] == "hi"
    result = next(m["tool_use_result"] for m in messages if m.get("tool_use_result"))
    assert stop["agent_transcript_path"] == result["transcriptPath"]
