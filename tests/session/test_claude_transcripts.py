"""Claude Code transcripts resumed in agentcli, and agentcli's transcripts read by Claude Code's tools."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from agentcli.config.paths import project_slug, sessions_dir
from agentcli.session.listing import describe
from tests.conftest import collect
from tests.messages import typed

SESSION = "5b1f0c7e-2a61-4d8e-9c0b-3f2d1e4a5b6c"
SIGNATURE = "EqQBCkYIBxgCKkBsig"
TEXT = {"content": [{"type": "text", "text": "Carrying on."}]}


def _line(kind: str, message: dict, uid: str, parent: str | None, cwd: Path, **extra: object) -> dict:
    """One line as Claude Code writes it (its key order: parentUuid first)."""
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": str(cwd),
        "sessionId": SESSION,
        "version": "2.1.332",
        "gitBranch": "main",
        "type": kind,
        "message": message,
        "uuid": uid,
        "timestamp": "2026-11-30T09:00:00.000Z",
        **extra,
    }


def _assistant(block: dict, message_id: str = "msg_01") -> dict:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-5-5",
        "content": [block],
        "stop_reason": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _result(tool_id: str, text: str) -> dict:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": text}]}


def claude_transcript(cwd: Path, *, interleaved: bool) -> list[dict]:
    """A Claude Code session: a prompt, one response with thinking, text and two parallel tool calls (one line per
    block), their results, a sub-agent's sidechain lines, and a final answer."""
    read_a = {"type": "tool_use", "id": "toolu_A", "name": "Read", "input": {"file_path": str(cwd / "a.py")}}
    read_b = {"type": "tool_use", "id": "toolu_B", "name": "Read", "input": {"file_path": str(cwd / "b.py")}}
    blocks = [
        _line("user", {"role": "user", "content": "Compare a.py and b.py"}, "u1", None, cwd),
        _line(
            "assistant",
            _assistant({"type": "thinking", "thinking": "Read both.", "signature": SIGNATURE}),
            "a1",
            "u1",
            cwd,
        ),
        _line("assistant", _assistant({"type": "text", "text": "Reading both files."}), "a2", "a1", cwd),
        _line("assistant", _assistant(read_a), "a3", "a2", cwd),
    ]
    result_a = _line("user", _result("toolu_A", "1\tx = 1"), "r1", "a3", cwd, toolUseResult={"type": "text"})
    second = _line("assistant", _assistant(read_b), "a4", "a3", cwd)
    result_b = _line("user", _result("toolu_B", "1\tx = 2"), "r2", "a4", cwd, toolUseResult={"type": "text"})
    blocks += [result_a, second, result_b] if interleaved else [second, result_a, result_b]
    side = _line("user", {"role": "user", "content": "sub-agent prompt"}, "s1", "a4", cwd, isSidechain=True)
    side_answer = _line("assistant", _assistant({"type": "text", "text": "side"}, "msg_side"), "s2", "s1", cwd)
    side_answer["isSidechain"] = True
    blocks += [side, side_answer]
    final = _assistant({"type": "text", "text": "a.py sets 1, b.py sets 2."}, "msg_02")
    final["stop_reason"] = "end_turn"
    blocks.append(_line("assistant", final, "a5", "r2", cwd))
    blocks.append({"type": "summary", "summary": "Comparing files", "leafUuid": "a5"})
    return blocks


def _write(path: Path, lines: list[dict]) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines).encode()  # as JSON.stringify
    path.write_bytes(data)
    return data


def _expected_history(cwd: Path) -> list[dict]:
    return [
        {"role": "user", "content": "Compare a.py and b.py"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Read both.", "signature": SIGNATURE},
                {"type": "text", "text": "Reading both files."},
                {"type": "tool_use", "id": "toolu_A", "name": "Read", "input": {"file_path": str(cwd / "a.py")}},
                {"type": "tool_use", "id": "toolu_B", "name": "Read", "input": {"file_path": str(cwd / "b.py")}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_A", "content": "1\tx = 1"},
                {"type": "tool_result", "tool_use_id": "toolu_B", "content": "1\tx = 2"},
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "a.py sets 1, b.py sets 2."}]},
    ]


async def test_resume_a_claude_code_session_by_id(fake_api, make_engine, project: Path, hermetic_home: Path):
    original = hermetic_home / ".claude" / "projects" / project_slug(project) / f"{SESSION}.jsonl"
    data = _write(original, claude_transcript(project, interleaved=False))
    server = fake_api({"turns": [TEXT]})
    engine = make_engine(server, resume=SESSION)
    messages = await collect(engine, "Now make them equal")
    assert messages[-1]["subtype"] == "success"
    sent = typed(server.requests[0].body["messages"])
    assert sent[:-1] == typed(_expected_history(project))  # parallel calls answered, not "interrupted"; no sidechain
    assert sent[-1]["content"] == "Now make them equal"
    assert original.read_bytes() == data  # the original is never written to
    new_id = messages[0]["session_id"]
    assert new_id != SESSION
    copy = sessions_dir(project) / f"{new_id}.jsonl"
    lines = [json.loads(line) for line in copy.read_text().splitlines()]
    assert any(line.get("importedFrom") == str(original) for line in lines)
    assert all(line.get("sessionId") == new_id for line in lines if "sessionId" in line)


async def test_resume_a_transcript_path_with_results_between_the_blocks(fake_api, make_engine, project, tmp_path):
    path = tmp_path / "exported" / f"{SESSION}.jsonl"
    _write(path, claude_transcript(project, interleaved=True))
    server = fake_api({"turns": [TEXT]})
    await collect(make_engine(server, resume=str(path)), "next")
    assert typed(server.requests[0].body["messages"])[:-1] == typed(_expected_history(project))


async def test_a_resumed_import_continues_in_its_own_file(fake_api, make_engine, project, tmp_path):
    path = tmp_path / f"{SESSION}.jsonl"
    _write(path, claude_transcript(project, interleaved=False))
    server = fake_api({"turns": [TEXT, TEXT]})
    engine = make_engine(server, resume=str(path))
    first = await collect(engine, "one")
    engine.config.recorder.close()  # the session ends; the next run resumes it
    await collect(make_engine(server, resume=first[0]["session_id"]), "two")
    history = typed(server.requests[1].body["messages"])
    assert history[:4] == typed(_expected_history(project))
    assert [m["content"] for m in history[4:]] == ["one", [{"type": "text", "text": "Carrying on."}], "two"]


def test_session_listing_counts_claude_code_lines(project: Path, tmp_path: Path):
    path = tmp_path / f"{SESSION}.jsonl"
    _write(path, claude_transcript(project, interleaved=False))
    info = describe(path)
    assert info.first_prompt == "Compare a.py and b.py" and info.git_branch == "main"
    assert info.message_count == 10  # user and assistant lines, sidechain ones included (as Claude Code's own count)


def test_an_unknown_id_still_says_no_conversation_found(project: Path):
    from agentcli.session.resume import SessionNotFound, open_session

    try:
        open_session(project, resume="not-a-session")
    except SessionNotFound as exc:
        assert "No conversation found with session ID: not-a-session" in str(exc)
    else:
        raise AssertionError("expected SessionNotFound")


async def test_claude_code_log_renders_an_agentcli_transcript(fake_api, make_engine, project: Path, tmp_path: Path):
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "The answer is forty-two."}]}]})
    engine = make_engine(server)
    messages = await collect(engine, "What is the answer to everything?")
    transcript = sessions_dir(project) / f"{messages[0]['session_id']}.jsonl"
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert all(line["isSidechain"] is False and line["userType"] == "external" for line in lines)
    tool = shutil.which("claude-code-log", path=str(Path(sys.executable).parent))
    assert tool is not None, "claude-code-log is part of the test extra"
    out = tmp_path / "out.md"
    done = subprocess.run(
        [tool, str(transcript), "-o", str(out), "--format", "md"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    rendered = out.read_text()
    assert "What is the answer to everything?" in rendered and "The answer is forty-two." in rendered
