"""Resume from the command line: --resume, --continue, --fork-session, --session-id, ``agentcli sessions``."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from agentcli.context.user_context import is_user_context_block
from tests.messages import typed
from tests.session.conftest import read_lines, text_turn
from tests.waiting import DEADLINE_S

TWO = {"turns": [text_turn("first answer"), text_turn("second answer"), text_turn("third answer")]}


def _session_id(stdout: str) -> str:
    return json.loads(stdout)["session_id"]


def test_resume_by_id_headless_appends_to_the_same_file(run_cli, fake_api, transcripts):
    server = fake_api(TWO)
    first = run_cli("-p", "remember the number 7", "--output-format", "json", server=server)
    assert first.returncode == 0, first.stderr
    session_id = _session_id(first.stdout)
    [path] = transcripts()
    before = path.read_bytes()
    second = run_cli("-p", "--resume", session_id, "what was the number?", "--output-format", "json", server=server)
    assert second.returncode == 0, second.stderr
    assert _session_id(second.stdout) == session_id
    assert json.loads(second.stdout)["result"] == "second answer"
    assert transcripts() == [path]
    assert path.read_bytes().startswith(before)
    sent = server.requests[1].body["messages"]
    assert sum(map(is_user_context_block, sent[0]["content"])) == 1  # resuming did not add it again
    assert typed(sent) == [
        {"role": "user", "content": "remember the number 7"},
        {"role": "assistant", "content": [{"type": "text", "text": "first answer"}]},
        {"role": "user", "content": "what was the number?"},
    ]
    prompts = [m["content"] for m in typed([line["message"] for line in read_lines(path) if line["type"] == "user"])]
    assert prompts == ["remember the number 7", "what was the number?"]


def test_continue_picks_the_latest_session(run_cli, fake_api):
    server = fake_api(TWO)
    run_cli("-p", "older", server=server)
    newer = run_cli("-p", "newer", "--output-format", "json", server=server)
    cont = run_cli("-p", "-c", "and then?", "--output-format", "json", server=server)
    assert cont.returncode == 0, cont.stderr
    assert _session_id(cont.stdout) == _session_id(newer.stdout)
    assert typed(server.requests[2].body["messages"])[0]["content"] == "newer"


def test_continue_with_nothing_to_continue(run_cli, fake_api):
    proc = run_cli("-p", "--continue", "hi", server=fake_api(TWO))
    assert proc.returncode == 1
    assert "No conversation found to continue" in proc.stderr


def test_fork_session_leaves_the_original_untouched(run_cli, fake_api, transcripts):
    server = fake_api(TWO)
    first = run_cli("-p", "base", "--output-format", "json", server=server)
    original_id = _session_id(first.stdout)
    [original] = transcripts()
    before = original.read_bytes()
    fork = run_cli(
        "-p", "--resume", original_id, "--fork-session", "branch off", "--output-format", "json", server=server
    )
    assert fork.returncode == 0, fork.stderr
    fork_id = _session_id(fork.stdout)
    assert fork_id != original_id
    assert original.read_bytes() == before
    fork_path = original.with_name(f"{fork_id}.jsonl")
    lines = read_lines(fork_path)
    assert {line["sessionId"] for line in lines} == {fork_id}
    assert any(line.get("forkedFrom") == original_id for line in lines)
    assert typed(server.requests[1].body["messages"])[0]["content"] == "base"
    # the fork resumes on its own
    again = run_cli("-p", "--resume", fork_id, "more", "--output-format", "json", server=server)
    assert again.returncode == 0, again.stderr
    assert [m.get("content") for m in typed(server.requests[2].body["messages"]) if m["role"] == "user"] == [
        "base",
        "branch off",
        "more",
    ]


def test_session_id_flag(run_cli, fake_api, transcripts):
    server = fake_api(TWO)
    chosen = str(uuid.uuid4())
    proc = run_cli("-p", "hi", "--session-id", chosen, "--output-format", "json", server=server)
    assert proc.returncode == 0, proc.stderr
    assert _session_id(proc.stdout) == chosen
    assert transcripts()[0].name == f"{chosen}.jsonl"
    reused = run_cli("-p", "hi", "--session-id", chosen, server=server)
    assert reused.returncode == 1 and f"Session ID {chosen} is already in use" in reused.stderr
    bad = run_cli("-p", "hi", "--session-id", "not-a-uuid", server=server)
    assert bad.returncode == 2 and "must be a UUID" in bad.stderr
    mixed = run_cli("-p", "hi", "--resume", chosen, "--session-id", str(uuid.uuid4()), server=server)
    assert mixed.returncode == 2 and "--fork-session" in mixed.stderr
    lonely = run_cli("-p", "hi", "--fork-session", server=server)
    assert lonely.returncode == 2


def test_unknown_id(run_cli, fake_api):
    server = fake_api(TWO)
    proc = run_cli("-p", "--resume", "0f0f0f0f-0000-4000-8000-000000000000", "hello", server=server)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == "No conversation found with session ID: 0f0f0f0f-0000-4000-8000-000000000000"
    traversal = run_cli("-p", "--resume", "../../etc/passwd", "hello", server=server)
    assert traversal.returncode == 1 and "No conversation found with session ID: ../../etc/passwd" in traversal.stderr
    assert server.requests == []


def test_unknown_here_but_known_elsewhere_says_where(run_cli, fake_api, project: Path, tmp_path: Path):
    server = fake_api(TWO)
    other = tmp_path / "other-project"
    other.mkdir()
    import os
    import subprocess
    import sys

    env = dict(os.environ, ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="k")
    proc = subprocess.run(
        [sys.executable, "-m", "agentcli", "-p", "elsewhere", "--output-format", "json"],
        cwd=other,
        env=env,
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
    )
    session_id = _session_id(proc.stdout)
    here = run_cli("-p", "--resume", session_id, "x", server=server)
    assert here.returncode == 1
    assert f"No conversation found with session ID: {session_id}" in here.stderr
    assert str(other) in here.stderr


def test_resume_without_an_id_lists_the_sessions(run_cli, fake_api):
    server = fake_api(TWO)
    first = run_cli("-p", "fix the login bug", "--output-format", "json", server=server)
    listing = run_cli("--resume", "-p", server=server, stdin="next")
    assert listing.returncode == 2
    assert _session_id(first.stdout) in listing.stderr
    assert "1." in listing.stderr and "fix the login bug" in listing.stderr
    assert "--resume ID" in listing.stderr


def test_sessions_subcommand(run_cli, fake_api, project: Path):
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    server = fake_api(TWO)
    first = run_cli("-p", "first task", "--output-format", "json", server=server)
    run_cli("-p", "-c", "follow-up", server=server)
    second = run_cli("-p", "second task", "--output-format", "json", server=server)
    table = run_cli("sessions")
    assert table.returncode == 0, table.stderr
    rows = table.stdout.splitlines()
    assert rows[0].split()[:2] == ["ID", "LAST"]
    assert rows[1].startswith(_session_id(second.stdout)) and rows[1].endswith("second task")
    assert rows[2].startswith(_session_id(first.stdout)) and rows[2].endswith("first task")
    assert " main " in rows[1]
    listed = [json.loads(line) for line in run_cli("sessions", "--json").stdout.splitlines()]
    assert [item["session_id"] for item in listed] == [_session_id(second.stdout), _session_id(first.stdout)]
    assert [item["message_count"] for item in listed] == [2, 4]
    assert listed[1]["first_prompt"] == "first task" and listed[1]["git_branch"] == "main"


def test_sessions_subcommand_with_none(run_cli):
    proc = run_cli("sessions")
    assert proc.returncode == 0 and proc.stdout == "" and "No sessions" in proc.stderr


def test_no_secret_ever_lands_in_a_transcript(run_cli, fake_api, project: Path, transcripts):
    key = "sk-ant-api03-" + uuid.uuid4().hex + "-SECRET"
    token = "ghp_" + uuid.uuid4().hex
    (project / ".env").write_text(f"ANTHROPIC_API_KEY={key}\nGITHUB_TOKEN={token}\n")
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_env",
                            "name": "Read",
                            "input": {"file_path": str(project / ".env")},
                        }
                    ]
                },
                text_turn(f"I found the key {key}"),
            ]
        }
    )
    deploy = "dpl_" + uuid.uuid4().hex
    settings = json.dumps({"env": {"DEPLOY_TOKEN": deploy, "MODE": "production"}})
    proc = run_cli(
        "-p",
        f"check my setup (my key is {key}, deploy token {deploy}, mode production)",
        "--settings",
        settings,
        server=server,
        env={"ANTHROPIC_API_KEY": key, "GITHUB_TOKEN": token},
    )
    assert proc.returncode == 0, proc.stderr
    assert len(server.requests) == 2
    [path] = transcripts()
    text = path.read_text()
    assert key not in text and token not in text and deploy not in text
    assert "mode production" in text  # ordinary settings values are left alone
    assert "x-api-key" not in text.lower() and "authorization" not in text.lower()
    assert "[REDACTED]" in text
    for line in read_lines(path):
        assert "env" not in line


def test_resume_warnings_go_to_stderr_and_the_run_succeeds(run_cli, fake_api, transcripts):
    server = fake_api(TWO)
    first = run_cli("-p", "hello", "--output-format", "json", server=server)
    [path] = transcripts()
    with path.open("ab") as handle:
        handle.write(b'{"type":"user","message":{"role":"us')
    proc = run_cli("-p", "--resume", _session_id(first.stdout), "again", server=server)
    assert proc.returncode == 0, proc.stderr
    assert "warning:" in proc.stderr and "cut off mid-write" in proc.stderr
    quiet = run_cli("-p", "--resume", _session_id(first.stdout), "third", server=server)
    assert quiet.returncode == 0 and "warning" not in quiet.stderr
