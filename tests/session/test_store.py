"""TranscriptStore as the engine drives it: line shape, the history round trip, durability, permissions."""

from __future__ import annotations

import itertools
import json
import os
import stat
import uuid
from pathlib import Path

from agentcli.config.paths import data_dir, sessions_dir
from agentcli.session.load import load_transcript
from agentcli.session.store import TranscriptStore
from tests.conftest import collect
from tests.messages import system_text, typed, without_cache_control
from tests.session.conftest import read_lines, text_turn

ENVELOPE = ("type", "uuid", "parentUuid", "sessionId", "timestamp", "cwd", "version")


async def test_every_line_has_the_envelope_and_the_chain(fake_api, make_engine, tool_session, transcripts, project):
    server = fake_api(tool_session)
    engine = make_engine(server, include_partial_messages=True)
    await collect(engine, "what does this project do?")
    [path] = transcripts()
    assert path.name == f"{engine.session_id}.jsonl"
    lines = read_lines(path)
    for line in lines:
        for key in ENVELOPE:
            assert key in line, (key, line)
        assert line["sessionId"] == engine.session_id
        assert line["cwd"] == str(project)
        assert line["timestamp"].endswith("Z")
    assert [line["parentUuid"] for line in lines] == [None] + [line["uuid"] for line in lines[:-1]]
    assert len({line["uuid"] for line in lines}) == len(lines)
    kinds = [(line["type"], line.get("subtype")) for line in lines]
    assert kinds == [
        ("user", None),
        ("assistant", None),
        ("user", None),
        ("user", None),
        ("assistant", None),
        ("user", None),
        ("assistant", None),
        ("result", "success"),
    ]
    # Streaming deltas, tool progress and the per-process init are never written.
    assert all(line["type"] not in ("stream_event",) for line in lines)
    assert "gitBranch" not in lines[0]  # not a repository
    tool_line = lines[2]
    assert tool_line["message"]["content"][0]["tool_use_id"] == "toolu_a1"
    assert tool_line["toolUseResult"]["file"]["filePath"] == str(project / "README.md")
    assert "tool_use_result" not in tool_line and "session_id" not in tool_line


async def test_loaded_history_is_what_the_engine_sent(fake_api, make_engine, tool_session, transcripts):
    server = fake_api(tool_session)
    engine = make_engine(server)
    await collect(engine, "what does this project do?")
    [path] = transcripts()
    transcript = load_transcript(path)
    assert transcript.warnings == []
    assert transcript.messages == engine.messages
    # Byte for byte, as the prompt cache needs.
    assert json.dumps(transcript.messages) == json.dumps(engine.messages)
    # The two results of the first assistant message are one user message again.
    assert [block["tool_use_id"] for block in transcript.messages[2]["content"]] == ["toolu_a1", "toolu_a2"]
    sent = without_cache_control(server.requests[-1].body["messages"])  # the request's cache markers aside
    assert json.dumps(sent) == json.dumps(transcript.messages[:-1])


async def test_git_branch_is_read_from_head(fake_api, make_engine, project, transcripts):
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/feature/login\n")
    server = fake_api({"turns": [text_turn("one"), text_turn("two")]})
    engine = make_engine(server)
    await collect(engine, "first")
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    await collect(engine, "second")
    lines = read_lines(transcripts()[0])
    assert [line.get("gitBranch") for line in lines] == ["feature/login"] * 3 + ["main"] * 3


def test_detached_head_and_worktree_file(tmp_path: Path):
    from agentcli.session.gitinfo import git_branch

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("3f2a9c0e5b1d\n")
    (repo / "sub" / "dir").mkdir(parents=True)
    assert git_branch(repo / "sub" / "dir") == "HEAD"
    worktree = tmp_path / "wt"
    worktree.mkdir()
    gitdir = tmp_path / "gitdirs" / "wt"
    gitdir.mkdir(parents=True)
    (gitdir / "HEAD").write_text("ref: refs/heads/topic\n")
    (worktree / ".git").write_text(f"gitdir: {gitdir}\n")
    assert git_branch(worktree) == "topic"
    assert git_branch(tmp_path / "nowhere") is None


async def test_files_are_0600_and_folders_0700(fake_api, make_engine, transcripts):
    server = fake_api({"turns": [text_turn("hi")]})
    await collect(make_engine(server), "hello")
    [path] = transcripts()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE((data_dir() / "projects").stat().st_mode) == 0o700


async def test_prompt_is_on_disk_before_the_request_leaves(fake_api, make_engine, transcripts):
    server = fake_api({"turns": [text_turn("one"), text_turn("two")]})
    engine = make_engine(server)
    seen: list[list[str]] = []
    stream = engine.config.client.stream

    def checking_stream(request):
        # Read the file the way a resume after a crash at this instant would.
        prompts = [m["content"] for m in typed(load_transcript(transcripts()[0]).messages) if m["role"] == "user"]
        seen.append(prompts)
        return stream(request)

    engine.config.client.stream = checking_stream
    await collect(engine, "first prompt")
    await collect(engine, "second prompt")
    assert seen == [["first prompt"], ["first prompt", "second prompt"]]


async def test_each_turn_ends_with_an_fsync(fake_api, make_engine, tool_session, monkeypatch):
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    server = fake_api(tool_session)
    engine = make_engine(server)
    await collect(engine, "go")
    store = engine.config.recorder
    # after each of the two tool-result turns and after the result; plus the folder once, when the file was made
    assert len(synced) >= 4
    assert store._dirty is False


def test_appending_writes_only_the_new_line(tmp_path: Path, monkeypatch):
    """Recording is on the hot path: one write of one line, whatever the history's length."""
    path = tmp_path / "s" / "x.jsonl"
    store = TranscriptStore(path, "x", tmp_path)
    big = "y" * 5000
    for n in range(2000):
        store.record(
            {
                "type": "user",
                "uuid": str(uuid.uuid4()),
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": big}],
                },
            }
        )
    writes: list[int] = []
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: (writes.append(len(data)), real_write(fd, data))[1])
    store.record({"type": "user", "message": {"role": "user", "content": "one more"}})
    assert len(writes) == 1 and writes[0] < 600  # what it costs is in scripts/bench/resume_load.py
    store.close()


def test_store_never_raises_on_odd_values_or_an_unwritable_place(tmp_path: Path):
    path = tmp_path / "sessions" / "s.jsonl"
    store = TranscriptStore(path, "s", tmp_path)
    store.record(
        {
            "type": "user",
            "message": {"role": "user", "content": "bad \udcff surrogate"},
            "tool_use_result": {"path": Path("/x"), "raw": b"bytes"},
        }
    )
    line = read_lines(path)[0]
    assert line["message"]["content"] == "bad \udcff surrogate"
    assert line["toolUseResult"]["path"] == "/x"
    store.close()
    (tmp_path / "a-file").write_text("")
    blocked = TranscriptStore(tmp_path / "a-file" / "new.jsonl", "new", tmp_path)
    blocked.record({"type": "user", "message": {"role": "user", "content": "hi"}})
    blocked.flush(durable=True)
    assert len(blocked.errors) == 1 and "could not write" in blocked.errors[0]


def test_secrets_in_tool_output_are_redacted(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-verysecretvalue")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_0123456789abcdefghijklmnop")
    monkeypatch.setenv("SHORT_KEY", "tiny")
    path = tmp_path / "s.jsonl"
    store = TranscriptStore(path, "s", tmp_path)
    store.record(
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t",
                        "content": "ANTHROPIC_API_KEY=sk-ant-api03-verysecretvalue\n"
                        "GITHUB_TOKEN=ghp_0123456789abcdefghijklmnop\nSHORT_KEY=tiny",
                    }
                ],
            },
        }
    )
    store.close()
    text = path.read_text()
    assert "verysecretvalue" not in text and "ghp_0123" not in text
    assert text.count("[REDACTED]") == 2 and "tiny" in text


def test_sessions_dir_is_under_the_data_dir(project: Path):
    assert sessions_dir(project).parent == data_dir() / "projects"
    assert str(data_dir()).startswith(os.environ["XDG_DATA_HOME"])


async def test_a_short_exchange_costs_under_5_kb(fake_api, make_engine, transcripts):
    server = fake_api({"turns": [text_turn("Hello! How can I help?")] * 3})
    first = make_engine(server)
    await collect(first, "hi")
    first.config.recorder.close()
    [path] = transcripts()
    sizes = [path.stat().st_size]
    for _ in range(2):
        again = make_engine(server, continue_session=True)
        await collect(again, "hi")
        again.config.recorder.close()
        sizes.append(path.stat().st_size)
    assert transcripts() == [path]
    assert all(b - a <= 5000 for a, b in itertools.pairwise(sizes)), sizes
    text = path.read_text()
    assert '"init"' not in text and system_text(server.requests[0].body)[:40] not in text
