"""Resuming a compacted session: the model gets the summary and what followed, never the history before it; the
transcript keeps everything, and the fast path that skips to the last boundary reads the same history."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.context.compact_messages import SUMMARY_HEADER, is_summary_request
from agentcli.session.load import load_transcript
from tests.session.conftest import read_lines, text_turn

SUMMARY_CUE = "summary of the conversation so far"


def test_headless_compact_then_resume_sends_the_summary(run_cli, fake_api, transcripts, project: Path):
    readme = str(project / "README.md")
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {"type": "tool_use", "id": "toolu_old_read", "name": "Read", "input": {"file_path": readme}}
                    ],
                    "when": {"last_user_text_excludes": SUMMARY_CUE},
                },
                {**text_turn("The readme greets."), "when": {"last_user_text_excludes": SUMMARY_CUE}},
                {
                    **text_turn("Summary: the user asked what the readme says."),
                    "when": {"last_user_text_contains": SUMMARY_CUE},
                },
                {**text_turn("Still here."), "when": {"last_user_text_excludes": SUMMARY_CUE}},
            ]
        }
    )
    first = run_cli("-p", "What does the readme say? Never use emoji.", "--output-format", "json", server=server)
    assert first.returncode == 0, first.stderr
    session_id = json.loads(first.stdout)["session_id"]

    compacted = run_cli(
        "-p", "--resume", session_id, "/compact", "--output-format", "stream-json", "--verbose", server=server
    )
    assert compacted.returncode == 0, compacted.stderr
    out = [json.loads(line) for line in compacted.stdout.splitlines()]
    boundary = next(m for m in out if m.get("subtype") == "compact_boundary")
    assert boundary["compact_metadata"]["trigger"] == "manual"
    assert out[-1]["type"] == "result" and out[-1]["subtype"] == "success"
    assert is_summary_request(server.requests[-1].body), "/compact was a command, not a prompt"

    resumed = run_cli("-p", "--resume", session_id, "Anything else?", "--output-format", "json", server=server)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["result"] == "Still here."
    sent = server.requests[-1].body["messages"]
    assert sent[0]["content"][0]["text"].startswith(SUMMARY_HEADER)
    assert "Summary: the user asked what the readme says." in sent[0]["content"][0]["text"]
    assert "Never use emoji." in json.dumps(sent[0])
    # The original opening is not sent as it was; the last few messages after it are kept verbatim (small here).
    assert {"role": "user", "content": "What does the readme say? Never use emoji."} not in sent
    assert sent[1]["role"] == "assistant" and sent[1]["content"][0]["id"] == "toolu_old_read"
    assert sent[-1] == {"role": "user", "content": "Anything else?"}

    # The file still holds the whole story: the old read, the boundary, the summary.
    [path] = transcripts()
    lines = read_lines(path)
    assert any("toolu_old_read" in json.dumps(line) for line in lines)
    assert [line.get("subtype") for line in lines].count("compact_boundary") == 1
    full = load_transcript(path)
    assert full.messages[0]["content"][0]["text"].startswith(SUMMARY_HEADER)
