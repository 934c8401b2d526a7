"""Raw stream-json input as any program would write it: queued turns, replays, stdin closing mid-turn, bad lines,
and every line printed in every mode accepted by the Agent SDK's message parser."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk._internal.message_parser import parse_message

from tests.ui.protocol.conftest import AGENTCLI, text_turn, tool_turn
from tests.waiting import DEADLINE_S

STREAM = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]


def _user(text: str, **extra: Any) -> str:
    return json.dumps(
        {
            "type": "user",
            "message": {"role": "user", "content": text},
            "parent_tool_use_id": None,
            "session_id": "",
            **extra,
        }
    )


def _run(project: Path, env: dict[str, str], args: list[str], stdin: str) -> tuple[int, list[dict], str]:
    proc = subprocess.run(
        [AGENTCLI, *args], cwd=project, env=env, input=stdin, capture_output=True, text=True, timeout=DEADLINE_S
    )
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines() if line.strip()], proc.stderr


def test_queued_messages_run_in_order_and_closing_stdin_finishes_the_running_turn(project, fake_api, run_cli_env):
    slow = {"content": [{"type": "text", "text": "slow answer", "chunks": 5}], "delay_ms": 50}
    server = fake_api({"turns": [slow, text_turn("second answer")]})
    stdin = (
        "\n".join(
            [
                _user("one", uuid="u-1", origin={"kind": "human"}),
                "",
                "not json",
                json.dumps({"type": "keep_alive"}),
                _user("two", uuid="u-2"),
            ]
        )
        + "\n"
    )
    code, lines, err = _run(project, run_cli_env(server), [*STREAM, "--replay-user-messages"], stdin)
    assert code == 0, err
    results = [line for line in lines if line["type"] == "result"]
    unreadable = "line 3 on stdin was not read: not valid JSON"
    assert [r["result"].split(" (")[0] for r in results] == ["slow answer", unreadable, "second answer"]
    assert results[1]["is_error"] and unreadable in err  # answered in its place in the queue
    assert results[0]["origin"] == {"kind": "human"} and results[0]["user_message_uuid"] == "u-1"
    assert results[2]["user_message_uuids"] == ["u-2"]
    replays = [line for line in lines if line["type"] == "user" and line.get("isReplay")]
    assert [r["uuid"] for r in replays] == ["u-1", "u-2"]
    assert server.requests[1].body["messages"][1]["content"][0]["text"] == "slow answer"


def test_the_exit_status_follows_the_last_result(project, fake_api, run_cli_env):
    server = fake_api({"turns": [{"fault": {"kind": "http", "status": 400, "message": "broken"}}]})
    code, lines, _ = _run(project, run_cli_env(server), STREAM, _user("hi") + "\n")
    assert code == 1 and lines[-1]["type"] == "result" and lines[-1]["is_error"]


def test_stream_json_input_needs_stream_json_output(run_cli):
    proc = run_cli("-p", "--input-format", "stream-json")
    assert proc.returncode == 2 and "--output-format stream-json" in proc.stderr


@pytest.mark.slow
def test_every_line_in_every_mode_parses_with_the_sdks_parser(project, fake_api, run_cli_env):
    readme = str(project / "README.md")
    scenario = [
        {
            "content": [
                {"type": "thinking", "thinking": "look", "signature": "s1"},
                {"type": "tool_use", "id": "toolu_r", "name": "Read", "input": {"file_path": readme}},
            ]
        },
        text_turn("It greets."),
    ]
    runs = [
        (["-p", "read it", "--output-format", "stream-json", "--verbose"], ""),
        (["-p", "read it", "--output-format", "stream-json", "--include-partial-messages"], ""),
        ([*STREAM, "--replay-user-messages", "--include-partial-messages"], _user("read it") + "\n"),
        ([*STREAM, "--json-schema", '{"type": "object"}', "--max-turns", "1"], _user("read it") + "\n"),
        ([*STREAM], "\n".join([_user("read it"), _user("/clear")]) + "\n"),
        (
            [*STREAM, "--permission-prompt-tool", "stdio", "--allowedTools", "Read"],
            "\n".join(
                [
                    json.dumps(
                        {
                            "type": "control_request",
                            "request_id": "r1",
                            "request": {"subtype": "initialize", "hooks": None},
                        }
                    ),
                    json.dumps(
                        {"type": "control_request", "request_id": "r2", "request": {"subtype": "get_context_usage"}}
                    ),
                    json.dumps({"type": "control_request", "request_id": "r3", "request": {"subtype": "mcp_status"}}),
                    json.dumps(
                        {
                            "type": "control_request",
                            "request_id": "r4",
                            "request": {"subtype": "rewind_files", "user_message_id": "x"},
                        }
                    ),
                    _user("read it"),
                ]
            )
            + "\n",
        ),
    ]
    kinds: set[str] = set()
    for args, stdin in runs:
        server = fake_api(
            {"turns": [*scenario, tool_turn("Read", {"file_path": readme}, "toolu_x")], "on_exhausted": "repeat_last"}
        )
        _, lines, err = _run(project, run_cli_env(server), args, stdin)
        assert lines, err
        for line in lines:
            kinds.add(f"{line['type']}/{line.get('subtype', '')}")
            if line["type"].startswith("control_"):
                continue
            assert parse_message(line) is not None, line
    assert {
        "system/init",
        "assistant/",
        "user/",
        "result/success",
        "stream_event/",
        "conversation_reset/",
        "control_response/",
        "result/error_max_turns",
    } <= kinds


def test_control_responses_carry_the_request_ids(project, fake_api, run_cli_env):
    server = fake_api({"turns": []})
    stdin = (
        "\n".join(
            json.dumps({"type": "control_request", "request_id": rid, "request": {"subtype": sub}})
            for rid, sub in (("a", "mcp_status"), ("b", "get_context_usage"), ("c", "no_such"))
        )
        + "\n"
    )
    code, lines, _ = _run(project, run_cli_env(server), STREAM, stdin)
    replies = {line["response"]["request_id"]: line["response"] for line in lines}
    assert code == 0
    assert replies["a"] == {"subtype": "success", "request_id": "a", "response": {"mcpServers": []}}
    usage = replies["b"]["response"]
    assert usage["totalTokens"] > 0 and usage["maxTokens"] >= usage["totalTokens"]
    assert replies["c"]["subtype"] == "error" and "no_such" in replies["c"]["error"]


def _start(project: Path, env: dict[str, str], args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [AGENTCLI, *args],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def _send(proc: subprocess.Popen[str], frame: dict[str, Any] | str) -> None:
    assert proc.stdin is not None
    proc.stdin.write((frame if isinstance(frame, str) else json.dumps(frame)) + "\n")
    proc.stdin.flush()


@pytest.mark.slow
def test_a_question_left_open_when_the_program_went_away_is_asked_once_on_the_next_start(
    project, fake_api, run_cli_env
):
    server = fake_api(
        {"turns": [tool_turn("Bash", {"command": "touch approved.txt"}, "toolu_orphan"), text_turn("Noted.")]}
    )
    env = run_cli_env(server)
    args = [*STREAM, "--permission-prompt-tool", "stdio"]
    with _start(project, env, args) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        _send(proc, _user("make the file"))
        for line in proc.stdout:
            if json.loads(line)["type"] == "control_request":
                break
        proc.stdin.close()  # the driving program dies without answering
        lines = [json.loads(line) for line in proc.stdout]
        assert proc.wait(timeout=DEADLINE_S) == 1
    session_id = lines[-1]["session_id"]
    assert lines[-1]["type"] == "result" and lines[-1]["is_error"]
    assert not (project / "approved.txt").exists()

    asked = []
    with _start(project, env, [*args, f"--resume={session_id}"]) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        _send(proc, _user("go on"))
        for line in proc.stdout:
            frame = json.loads(line)
            if frame["type"] == "control_request":
                asked.append(frame["request"]["tool_use_id"])
                _send(
                    proc,
                    {
                        "type": "control_response",
                        "response": {
                            "subtype": "success",
                            "request_id": frame["request_id"],
                            "response": {"behavior": "allow", "updatedInput": {"command": "touch approved.txt"}},
                        },
                    },
                )
            if frame["type"] == "result":
                break
        proc.stdin.close()
        proc.wait(timeout=DEADLINE_S)
    assert asked == ["toolu_orphan"]
    assert (project / "approved.txt").exists()
    note = server.requests[-1].body["messages"][-1]["content"][0]["text"]
    assert "toolu_orphan" in note and "approved" in note

    again = subprocess.run(
        [AGENTCLI, *args, f"--resume={session_id}"],
        cwd=project,
        env=env,
        text=True,
        input=_user("and again") + "\n",
        capture_output=True,
        timeout=DEADLINE_S,
    )
    assert '"can_use_tool"' not in again.stdout  # asked once, not again


def test_sigterm_interrupts_the_running_turn_and_runs_nothing_queued(project, fake_api, run_cli_env):
    # the answer stops after a few words and goes on only when the server stops: it is surely mid-stream
    held = {"content": [{"type": "text", "text": "word " * 40, "chunks": 40}], "hold_after_events": 10}
    server = fake_api({"turns": [held, text_turn("never")]})
    with _start(project, run_cli_env(server), [*STREAM, "--include-partial-messages"]) as proc:
        assert proc.stdout is not None
        _send(proc, _user("talk"))
        _send(proc, _user("queued"))
        for line in proc.stdout:
            if json.loads(line).get("type") == "stream_event":
                break
        proc.send_signal(signal.SIGTERM)
        lines = [json.loads(line) for line in proc.stdout]
        assert proc.wait(timeout=DEADLINE_S) == 128 + signal.SIGTERM
    results = [line for line in lines if line["type"] == "result"]
    assert len(results) == 1 and results[0]["is_error"] and results[0]["terminal_reason"] == "aborted_streaming"
    assert len(server.requests) == 1
