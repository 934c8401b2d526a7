"""Every line a driving program sends is answered, whatever it holds: a control request by its control response, a
line that is not a message by an error result in its turn's place, a lone surrogate by a normal turn (read as
U+FFFD). None of them stops the session or leaves the program waiting."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from claude_agent_sdk import ClaudeSDKClient, ResultMessage

from agentcli.ui.protocol.channel import MAX_LINE_BYTES
from tests.messages import typed
from tests.ui.protocol.conftest import AGENTCLI, text_turn, tool_turn
from tests.ui.protocol.test_stream_json import STREAM, _send, _start, _user
from tests.waiting import DEADLINE_S


def _control(request_id: str, request: dict[str, Any]) -> str:
    return json.dumps({"type": "control_request", "request_id": request_id, "request": request})


async def test_a_lone_surrogate_from_the_sdk_is_read_as_a_replacement_character(sdk_options):
    options, server = sdk_options([text_turn("Read it.")])
    async with ClaudeSDKClient(options=options) as client:
        await client.query("file name: caf\udce9.txt")  # what a non-UTF-8 name decodes to
        messages = [message async for message in client.receive_response()]
    result = messages[-1]
    assert isinstance(result, ResultMessage) and not result.is_error and result.result == "Read it."
    assert typed(server.requests[0].body["messages"])[0]["content"] == "file name: caf\ufffd.txt"


def test_bad_lines_are_each_answered_and_the_session_goes_on(project, fake_api, run_cli_env):
    server = fake_api({"turns": [text_turn("First."), text_turn("Second.")]})
    oversized = '{"type": "user", "message": {"role": "user", "content": "' + "x" * MAX_LINE_BYTES + '"}}'
    lines = [
        _control("r1", {"subtype": "initialize", "hooks": None}),
        '{"type": "control_request", "request_id": "r2", "request": {"subty',  # cut short
        "[1, 2]",
        '{"type": "bogus"}',
        oversized,
        _control("r3", {"subtype": "no_such_request"}),
        json.dumps({"type": "control_request", "request_id": "r4"}),
        '{"type": "user", "message": {"role": "user", "content": "lone \\ud800 half"}}',
        '{"type": "user", "message": {"role": "user", "conte',  # cut short
        _user("hi"),
    ]
    proc = subprocess.run(
        [AGENTCLI, *STREAM],
        cwd=project,
        env=run_cli_env(server),
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
    )
    out = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert proc.returncode == 0, proc.stderr  # the last turn succeeded
    replies = {line["response"]["request_id"]: line["response"] for line in out if line["type"] == "control_response"}
    assert replies["r1"]["subtype"] == "success"
    assert replies["r2"]["subtype"] == "error" and "line 2 on stdin" in replies["r2"]["error"]
    assert replies["r3"]["subtype"] == "error" and "no_such_request" in replies["r3"]["error"]
    assert replies["r4"]["subtype"] == "error" and "Field required" in replies["r4"]["error"]

    results = [line for line in out if line["type"] == "result"]
    assert [r["is_error"] for r in results] == [True, True, True, False, True, False]
    assert "line 3 on stdin" in results[0]["result"] and "Input should be an object" in results[0]["result"]
    assert "line 4 on stdin" in results[1]["result"] and "bogus" in results[1]["result"]
    assert "line 5 on stdin" in results[2]["result"] and f"over the {MAX_LINE_BYTES:,}" in results[2]["result"]
    assert results[3]["result"] == "First."
    assert "line 9 on stdin" in results[4]["result"] and "not valid JSON" in results[4]["result"]
    assert results[5]["result"] == "Second."
    assert typed(server.requests[0].body["messages"])[0]["content"] == "lone \ufffd half"
    assert "lone UTF-16 surrogates" in proc.stderr


def test_an_unreadable_answer_to_a_question_fails_the_question_instead_of_waiting(project, fake_api, run_cli_env):
    server = fake_api({"turns": [tool_turn("Bash", {"command": "touch asked.txt"}, "toolu_q"), text_turn("Okay.")]})
    with _start(project, run_cli_env(server), [*STREAM, "--permission-prompt-tool", "stdio"]) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        _send(proc, _user("make the file"))
        frames = []
        for line in proc.stdout:
            frame = json.loads(line)
            frames.append(frame)
            if frame["type"] == "control_request":
                answer = {"subtype": "maybe", "request_id": frame["request_id"], "response": {"behavior": "allow"}}
                _send(proc, {"type": "control_response", "response": answer})
            if frame["type"] == "result":
                break
        proc.stdin.close()
        assert proc.wait(timeout=DEADLINE_S) == 0
    assert frames[-1]["result"] == "Okay."
    assert not (project / "asked.txt").exists()
    [denied] = [b for b in server.requests[1].body["messages"][-1]["content"] if b.get("type") == "tool_result"]
    assert denied["is_error"] and "was not read" in json.dumps(denied)
