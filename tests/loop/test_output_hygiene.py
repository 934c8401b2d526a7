"""What the model sends that the API would refuse back (whitespace-only text, lone surrogates) is cleaned from the
history it is sent, on the live path and on resume, kept in the transcript, and never crashes an output format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.config.paths import sessions_dir
from agentcli.loop.repair import assistant_param
from tests.session.conftest import read_lines, text_turn


def test_assistant_param_drops_blank_text_and_replaces_lone_surrogates():
    tool = {"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {"content": "a\udc80b", "n": [1]}}
    param = assistant_param(
        [{"type": "text", "text": "\n\n"}, {"type": "text", "text": ""}, tool, {"type": "text", "text": " \t"}]
    )
    assert param == {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {"content": "a\ufffdb", "n": [1]}}],
    }
    assert tool["input"]["content"] == "a\udc80b"  # the response itself is left as it came
    assert assistant_param([{"type": "text", "text": "\n"}]) is None
    clean = [{"type": "text", "text": "fine ✓"}]
    assert assistant_param(clean)["content"][0] is clean[0]


def _blank_then_tool(project: Path) -> dict:
    return {
        "turns": [
            {
                "content": [
                    {"type": "text", "text": "\n\n"},
                    {
                        "type": "tool_use",
                        "id": "toolu_w1",
                        "name": "Read",
                        "input": {"file_path": str(project / "README.md")},
                    },
                ]
            },
            text_turn("Read it."),
            text_turn("Resumed fine."),
        ]
    }


def test_a_whitespace_block_is_not_sent_back_and_the_session_resumes(run_cli, fake_api, project: Path):
    server = fake_api(_blank_then_tool(project))
    first = run_cli("-p", "look at the readme", "--output-format", "json", server=server)
    assert first.returncode == 0, first.stderr
    sent_back = server.requests[1].body["messages"][1]
    assert sent_back["content"] == [
        {"type": "tool_use", "id": "toolu_w1", "name": "Read", "input": {"file_path": str(project / "README.md")}}
    ]
    [path] = sessions_dir(project).glob("*.jsonl")
    assistant_lines = [line for line in read_lines(path) if line["type"] == "assistant"]
    assert assistant_lines[0]["message"]["content"][0] == {"type": "text", "text": "\n\n"}  # kept for display
    session_id = json.loads(first.stdout)["session_id"]
    second = run_cli("-p", "--resume", session_id, "again", "--output-format", "json", server=server)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["result"] == "Resumed fine."
    assert server.requests[2].body["messages"][1] == sent_back  # byte for byte what the live path sent


@pytest.mark.parametrize("output_format", ["text", "json", "stream-json"])
def test_a_lone_surrogate_in_the_models_text_never_crashes_an_output_format(run_cli, fake_api, output_format: str):
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "bad \ud800 text"}]}]})
    proc = run_cli("-p", "hi", "--output-format", output_format, "--verbose", server=server)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    if output_format == "text":
        assert proc.stdout == "bad \ufffd text\n"
        return
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    result = lines[-1]
    assert result["type"] == "result" and result["result"] == "bad \ud800 text"
    if output_format == "stream-json":
        [assistant] = [line for line in lines if line["type"] == "assistant"]
        assert assistant["message"]["content"][0]["text"] == "bad \ud800 text"
