"""The command-line server: port on the first line, serves, stops on SIGTERM, keeps credentials out of its log."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import anthropic

from agentcli.testing import FakeAnthropicServer
from tests.waiting import DEADLINE_S

SECRET = "sk-ant-api03-not-a-real-key-0123456789"


def test_cli_prints_port_serves_and_stops(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    command = [
        sys.executable,
        "-m",
        "agentcli.testing.fake_api",
        "--scenario",
        "demo",
        "--port",
        "0",
        "--log",
        str(log),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        first_line = process.stdout.readline()
        assert first_line.strip().isdigit() and first_line == f"{int(first_line)}\n"
        base_url = f"http://127.0.0.1:{int(first_line)}"
        messages = [{"role": "user", "content": "hi"}]
        with (
            anthropic.Anthropic(base_url=base_url, api_key=SECRET, max_retries=0) as client,
            client.messages.stream(model="m", max_tokens=100, messages=messages) as stream,
        ):
            message = stream.get_final_message()
        assert message.content[-1].type == "tool_use"
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=DEADLINE_S)
    assert process.returncode == 0, stderr
    text = log.read_text()
    assert SECRET not in text
    (line,) = [json.loads(raw) for raw in text.splitlines()]
    assert line["path"] == "/v1/messages" and line["turn_index"] == 0 and line["violations"] == []
    assert not {"authorization", "x-api-key"} & set(line["headers"])


def test_cli_reports_a_bad_scenario(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"turns": [{"oops": 1}]}')
    command = [sys.executable, "-m", "agentcli.testing.fake_api", "--scenario", str(bad)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=DEADLINE_S)
    assert result.returncode == 2
    assert "cannot start" in result.stderr and result.stdout == ""


def test_demo_scenario_end_to_end(client_for: Callable) -> None:
    scenario = json.loads(json.dumps(FakeAnthropicServer("demo").scenario.model_dump(mode="json")))
    for turn in scenario["turns"]:
        turn["delay_ms"] = 0
    with FakeAnthropicServer(scenario) as server:
        client = client_for(server)
        tools = [{"name": "Read", "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}}}]
        messages: list = [{"role": "user", "content": "How do I read a file?"}]
        with client.messages.stream(model="m", max_tokens=500, messages=messages, tools=tools) as stream:
            first = stream.get_final_message()
        tool = first.content[-1]
        assert (tool.type, tool.name, tool.input) == ("tool_use", "Read", {"file_path": "README.md"})
        messages += [
            first.to_param(),
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool.id, "content": "# agentcli"}]},
        ]
        with client.messages.stream(model="m", max_tokens=500, messages=messages, tools=tools) as stream:
            assert "README.md" in stream.get_final_text()
        server.assert_all_valid()
