"""Issue acceptance: over a long tool session every request extends the previous one byte for byte, so the
prompt cache is read on every turn after the first."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from agentcli.api.cache import MAX_BREAKPOINTS
from agentcli.api.pricing import price_for
from agentcli.commands.reports import cost_report
from tests.conftest import collect
from tests.messages import without_cache_control

TURNS = 30


def _tool_turns(project: Path) -> list[dict[str, Any]]:
    calls = [
        ("Read", {"file_path": str(project / "README.md")}),
        ("Glob", {"pattern": "**/*.py"}),
        ("Grep", {"pattern": "def", "path": str(project)}),
        ("Read", {"file_path": str(project / "src" / "app.py")}),
    ]
    turns = []
    for n in range(TURNS - 1):
        name, tool_input = calls[n % len(calls)]
        turns.append(
            {
                "content": [
                    {"type": "text", "text": f"Step {n}."},
                    {"type": "tool_use", "id": f"toolu_{n:02d}", "name": name, "input": tool_input},
                ]
            }
        )
    turns.append({"content": [{"type": "text", "text": "All done."}]})
    return turns


def _cache_sites(body: dict[str, Any]) -> int:
    return json.dumps(body).count('"cache_control"')


def _canonical(value: Any) -> str:
    return json.dumps(without_cache_control(value), ensure_ascii=False)  # key order kept: bytes, not equality


async def test_thirty_turn_session_keeps_its_prefix_and_reads_the_cache(fake_api, make_engine, project: Path):
    (project / "src" / "AGENTS.md").write_text("In src: keep functions pure.\n")
    server = fake_api({"turns": _tool_turns(project), "prompt_cache": True, "model": "claude-sonnet-5-5"})
    engine = make_engine(server)
    messages = await collect(engine, "Survey the project.")
    result = messages[-1]
    assert result["subtype"] == "success", result
    assert result["result"] == "All done." and result["num_turns"] == TURNS

    bodies = [request.body for request in server.requests]
    assert len(bodies) == TURNS
    first = bodies[0]
    for previous, body in itertools.pairwise(bodies):
        assert json.dumps(body["system"]) == json.dumps(first["system"])
        assert json.dumps(body["tools"]) == json.dumps(first["tools"])
        head = body["messages"][: len(previous["messages"])]
        assert _canonical(head) == _canonical(previous["messages"])  # only the cache markers moved
        assert len(body["messages"]) == len(previous["messages"]) + 2
    assert all(1 <= _cache_sites(body) <= MAX_BREAKPOINTS for body in bodies)
    assert "cache_control" in first["system"][-1] and "cache_control" in first["tools"][-1]

    # The sub-folder's memory file arrived once, with the first read below it.
    reminders = [r for r in _results(bodies[-1]) if "In src: keep functions pure." in json.dumps(r)]
    assert len(reminders) == 1 and reminders[0]["tool_use_id"] == "toolu_03"

    usages = [m["message"]["usage"] for m in messages if m["type"] == "assistant"]
    assert usages[0]["cache_read_input_tokens"] == 0 and usages[0]["cache_creation_input_tokens"] > 0
    assert all(usage["cache_read_input_tokens"] > 0 for usage in usages[1:])
    assert all(usage["cache_read_input_tokens"] > usage["input_tokens"] for usage in usages[1:])
    totals = result["usage"]
    assert totals["cache_read_input_tokens"] == sum(u["cache_read_input_tokens"] for u in usages)
    assert totals["cache_creation_input_tokens"] == sum(u["cache_creation_input_tokens"] for u in usages)
    price = price_for("claude-sonnet-5-5")
    assert price is not None
    expected = (
        totals["input_tokens"] * price.input
        + totals["output_tokens"] * price.output
        + totals["cache_creation_input_tokens"] * price.cache_write
        + totals["cache_read_input_tokens"] * price.cache_read
    ) / 1_000_000
    assert abs(result["total_cost_usd"] - expected) < 1e-9
    model_usage = result["modelUsage"]["claude-sonnet-5-5"]
    assert model_usage["cacheReadInputTokens"] == totals["cache_read_input_tokens"]
    report = cost_report(engine)  # /cost, in every face
    assert f"cache read {totals['cache_read_input_tokens']:,}" in report
    assert (
        f"cache write {totals['cache_creation_input_tokens']:,}" in report
        and "% of the prompt read from cache" in report
    )


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        block
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def test_the_cli_result_reports_cache_reads_and_writes(run_cli, fake_api, project: Path):
    turns = [*_tool_turns(project)[:3], {"content": [{"type": "text", "text": "All done."}]}]
    server = fake_api({"turns": turns, "prompt_cache": True})
    proc = run_cli("-p", "Survey the project.", "--output-format", "json", server=server)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["result"] == "All done." and len(server.requests) == 4
    assert result["usage"]["cache_creation_input_tokens"] > 0
    assert result["usage"]["cache_read_input_tokens"] > result["usage"]["input_tokens"]
    systems = {json.dumps(request.body["system"]) for request in server.requests}
    assert len(systems) == 1
