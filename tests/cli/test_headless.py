"""``agentcli -p`` as a user runs it: a real process, the real SDK, the fake Messages API."""

from __future__ import annotations

import json
from pathlib import Path

from claude_agent_sdk._internal.message_parser import parse_message

from tests.messages import system_text, typed
from tests.waiting import DEADLINE_S

TEXT_TURN = {"content": [{"type": "text", "text": "Hi there", "chunks": 3}]}


def _tool_scenario(project: Path) -> dict:
    return {
        "turns": [
            {
                "content": [
                    {"type": "thinking", "thinking": "I should read it", "signature": "sig_1"},
                    {"type": "text", "text": "Reading."},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "Read",
                        "input": {"file_path": str(project / "README.md")},
                        "chunks": 12,
                    },
                ]
            },
            {"content": [{"type": "text", "text": "The README greets you."}]},
        ]
    }


def _lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_text_output(run_cli, fake_api):
    server = fake_api({"turns": [TEXT_TURN]})
    proc = run_cli("-p", "hello", server=server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hi there\n"


def test_prompt_from_stdin(run_cli, fake_api):
    server = fake_api({"turns": [TEXT_TURN]})
    proc = run_cli("-p", server=server, stdin="what is this repo?\n")
    assert proc.returncode == 0, proc.stderr
    assert typed(server.requests[0].body["messages"])[0]["content"] == "what is this repo?\n"


def test_json_output(run_cli, fake_api):
    server = fake_api({"turns": [TEXT_TURN]})
    proc = run_cli("-p", "hello", "--output-format", "json", server=server)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["type"] == "result" and result["result"] == "Hi there"
    for key in (
        "session_id",
        "uuid",
        "num_turns",
        "duration_ms",
        "duration_api_ms",
        "total_cost_usd",
        "usage",
        "is_error",
        "stop_reason",
        "permission_denials",
    ):
        assert key in result


def test_stream_json_lines_have_the_sdk_fields_and_parse_with_the_official_parser(run_cli, fake_api, project):
    server = fake_api(_tool_scenario(project))
    proc = run_cli("-p", "read the readme", "--output-format", "stream-json", server=server)
    assert proc.returncode == 0, proc.stderr
    lines = _lines(proc.stdout)
    assert [line["type"] for line in lines] == ["system", "assistant", "user", "assistant", "result"]
    init = lines[0]
    assert init["subtype"] == "init"
    for key in ("session_id", "cwd", "model", "tools", "permissionMode", "slash_commands", "version", "uuid"):
        assert key in init
    assert init["cwd"] == str(project)
    session_ids = {line["session_id"] for line in lines}
    assert len(session_ids) == 1
    assert len({line["uuid"] for line in lines}) == len(lines)
    assistant = lines[1]["message"]
    assert [block["type"] for block in assistant["content"]] == ["thinking", "text", "tool_use"]
    assert assistant["stop_reason"] == "tool_use" and assistant["usage"]["output_tokens"] > 0
    assert lines[2]["message"]["content"][0]["tool_use_id"] == "toolu_1"
    assert lines[2]["tool_use_result"]["file"]["filePath"] == str(project / "README.md")
    result = lines[-1]
    assert result["subtype"] == "success" and result["result"] == "The README greets you."
    for line in lines:
        assert parse_message(line) is not None


def test_partial_messages_parse_with_the_official_parser(run_cli, fake_api, project):
    server = fake_api(_tool_scenario(project))
    proc = run_cli("-p", "read", "--output-format", "stream-json", "--include-partial-messages", server=server)
    assert proc.returncode == 0, proc.stderr
    lines = _lines(proc.stdout)
    events = [line["event"]["type"] for line in lines if line["type"] == "stream_event"]
    assert events[0] == "message_start" and events[-1] == "message_stop"
    assert "content_block_delta" in events and "message_delta" in events
    for line in lines:
        assert "session_id" in line and "uuid" in line
        assert parse_message(line) is not None


def test_a_program_reading_partial_messages_gets_every_delta_a_person_watching_gets_them_merged(
    run_cli, fake_api, project, hermetic_home
):
    """Deltas that arrive in one network read stay separate events for a program; a face may show them as one."""
    from agentcli.api.client import Credentials
    from agentcli.bootstrap import SessionOptions, build_engine

    server = fake_api({"turns": [{"content": [{"type": "text", "text": "x" * 400, "chunks": 50}]}]})
    proc = run_cli("-p", "hi", "--output-format", "stream-json", "--include-partial-messages", server=server)
    assert proc.returncode == 0, proc.stderr
    events = [line["event"] for line in _lines(proc.stdout) if line["type"] == "stream_event"]
    assert sum(event["type"] == "content_block_delta" for event in events) == 50
    credentials = Credentials(api_key="test-key", base_url=server.base_url)
    for interactive, partial, merged in ((True, True, True), (False, True, False), (False, False, True)):
        options = SessionOptions(cwd=project, interactive=interactive, include_partial_messages=partial)
        engine = build_engine(options, credentials)
        try:
            assert engine.config.merge_text_deltas is merged
        finally:
            engine.config.recorder.close()


def test_max_turns_exits_1(run_cli, fake_api, project):
    read = {"type": "tool_use", "name": "Read", "input": {"file_path": str(project / "README.md")}}
    server = fake_api({"turns": [{"content": [{**read, "id": "toolu_1"}]}, {"content": [{**read, "id": "toolu_2"}]}]})
    proc = run_cli("-p", "go", "--max-turns", "1", "--output-format", "json", server=server)
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["subtype"] == "error_max_turns"


def test_budget_exits_1(run_cli, fake_api):
    server = fake_api(
        {
            "turns": [
                {
                    "content": [{"type": "text", "text": "pricey"}],
                    "usage": {"input_tokens": 1_000_000, "output_tokens": 0},
                }
            ]
        }
    )
    proc = run_cli("-p", "go", "--max-budget-usd", "0.01", "--output-format", "json", server=server)
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["subtype"] == "error_max_budget_usd"


def test_model_and_system_prompt_flags(run_cli, fake_api):
    server = fake_api({"turns": [TEXT_TURN, TEXT_TURN]})
    proc = run_cli(
        "-p",
        "x",
        "--model",
        "claude-opus-5-5",
        "--system-prompt",
        "You are terse.",
        "--append-system-prompt",
        "Answer in French.",
        server=server,
    )
    assert proc.returncode == 0, proc.stderr
    body = server.requests[0].body
    assert body["model"] == "claude-opus-5-5"
    assert system_text(body) == "You are terse.\n\nAnswer in French."
    proc = run_cli("-p", "x", server=server, env={"ANTHROPIC_MODEL": "claude-haiku-5-5"})
    assert server.requests[1].body["model"] == "claude-haiku-5-5"


def test_auth_token_is_sent_as_bearer(run_cli, fake_api):
    server = fake_api({"turns": [TEXT_TURN]})
    proc = run_cli("-p", "x", env={"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_AUTH_TOKEN": "tok-123"})
    assert proc.returncode == 0, proc.stderr
    headers = server.requests[0].headers
    assert headers["authorization"] == "Bearer tok-123"
    assert "x-api-key" not in headers


def test_missing_credentials_exit_2_and_say_what_to_do(run_cli):
    proc = run_cli("-p", "hello")
    assert proc.returncode == 2
    assert "ANTHROPIC_API_KEY" in proc.stderr and "ANTHROPIC_AUTH_TOKEN" in proc.stderr and "--demo" in proc.stderr
    assert proc.stdout == ""


def test_bad_usage_exits_2(run_cli):
    for args in (
        ["-p", "x", "--max-turns", "0"],
        ["-p", "x", "--output-format", "yaml"],
        ["-p", "x", "--max-budget-usd", "-1"],
        ["-p", "x", "--include-partial-messages"],
    ):
        proc = run_cli(*args)
        assert proc.returncode == 2, args
        assert "usage:" in proc.stderr


def test_version_and_help(run_cli):
    from agentcli import __version__

    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"agentcli {__version__}"
    proc = run_cli("--help")
    assert proc.returncode == 0
    for flag in ("--print", "--output-format", "--max-turns", "--max-budget-usd", "--demo", "ANTHROPIC_BASE_URL"):
        assert flag in proc.stdout


def test_demo_runs_without_a_key(run_cli):
    proc = run_cli("--demo", "-p", "show me", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["subtype"] == "success" and result["result"]
    assert result["num_turns"] >= 2


def test_a_reader_that_goes_away_stops_the_run_quietly(fake_api, project, run_cli_env):
    import subprocess
    import sys

    server = fake_api({"turns": [{"content": [{"type": "text", "text": "line\n" * 5000, "chunks": 500}]}]})
    command = (
        f"{sys.executable} -m agentcli -p hi --output-format stream-json --include-partial-messages"
        " | head -1 > /dev/null; echo ${PIPESTATUS[0]}"
    )
    proc = subprocess.run(
        command,
        shell=True,
        executable="/bin/bash",
        cwd=project,
        env=run_cli_env(server),
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
    )
    assert proc.stdout.strip() == "141"
    assert "Traceback" not in proc.stderr and proc.stderr == ""


def test_verbose_text_shows_tools_retries_and_warnings(run_cli, fake_api, project):
    server = fake_api(
        {
            "turns": [
                {"fault": {"kind": "http", "status": 503, "message": "busy"}},
                {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_v",
                            "name": "Read",
                            "input": {"file_path": str(project / "README.md")},
                        }
                    ]
                },
                {"content": [{"type": "text", "text": "Read it."}]},
            ]
        }
    )
    proc = run_cli("-p", "go", "--verbose", server=server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Read it.\n"
    assert "Retrying in" in proc.stderr and "attempt 1/10 (503)" in proc.stderr
    assert "● Read(" in proc.stderr and "⎿ 1\t# Demo project" in proc.stderr
