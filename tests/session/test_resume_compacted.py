"""Resuming a compacted session: the model gets the summary and what followed, never the history before it; the
transcript keeps everything, and the fast path that skips to the last boundary reads the same history."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.context.compact_messages import SUMMARY_HEADER, is_summary_request
from agentcli.session.load import load_transcript
from tests.messages import first_text, typed
from tests.session.conftest import read_lines, text_turn

SUMMARY_CUE = "summary of the conversation so far"


def test_headless_compact_then_resume_sends_the_summary(run_cli, fake_api, transcripts, project: Path):
    readme = str(project / "README.md")
    long_answer = "The readme greets. " + "It says hello in many words. " * 1_700  # more than the kept tail takes
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {"type": "tool_use", "id": "toolu_old_read", "name": "Read", "input": {"file_path": readme}}
                    ],
                    "when": {"last_user_text_excludes": SUMMARY_CUE},
                },
                {**text_turn(long_answer), "when": {"last_user_text_excludes": SUMMARY_CUE}},
                {**text_turn("It is short."), "when": {"last_user_text_excludes": SUMMARY_CUE}},
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
    second = run_cli("-p", "--resume", session_id, "Is it long?", "--output-format", "json", server=server)
    assert second.returncode == 0, second.stderr

    compacted = run_cli(
        "-p", "--resume", session_id, "/compact", "--output-format", "stream-json", "--verbose", server=server
    )
    assert compacted.returncode == 0, compacted.stderr
    out = [json.loads(line) for line in compacted.stdout.splitlines()]
    boundary = next(m for m in out if m.get("subtype") == "compact_boundary")
    assert boundary["compact_metadata"]["trigger"] == "manual"
    assert boundary["compact_metadata"]["post_tokens"] < boundary["compact_metadata"]["pre_tokens"]
    assert out[-1]["type"] == "result" and out[-1]["subtype"] == "success"
    assert is_summary_request(server.requests[-1].body), "/compact was a command, not a prompt"

    resumed = run_cli("-p", "--resume", session_id, "Anything else?", "--output-format", "json", server=server)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["result"] == "Still here."
    sent = server.requests[-1].body["messages"]
    assert first_text(sent[0]).startswith(SUMMARY_HEADER)
    assert "Summary: the user asked what the readme says." in first_text(sent[0])
    assert "Never use emoji." in json.dumps(sent[0])
    # The original opening is not sent as it was, nor the long answer; the last exchange is kept verbatim.
    assert {"role": "user", "content": "What does the readme say? Never use emoji."} not in sent
    assert "many words" not in json.dumps(sent)
    assert typed(sent)[1:] == [
        {"role": "user", "content": "Is it long?"},
        {"role": "assistant", "content": [{"type": "text", "text": "It is short."}]},
        {"role": "user", "content": "Anything else?"},
    ]

    # The file still holds the whole story: the old read, the boundary, the summary.
    [path] = transcripts()
    lines = read_lines(path)
    assert any("toolu_old_read" in json.dumps(line) for line in lines)
    assert [line.get("subtype") for line in lines].count("compact_boundary") == 1
    full = load_transcript(path)
    assert first_text(full.messages[0]).startswith(SUMMARY_HEADER)


def test_a_compaction_that_would_not_shrink_is_not_applied(run_cli, fake_api, transcripts):
    """A short history is about as short as its summary: ``/compact`` says so, sends nothing, changes nothing."""
    server = fake_api({"turns": [text_turn("Hello.")]})
    first = run_cli("-p", "Hi.", "--output-format", "json", server=server)
    assert first.returncode == 0, first.stderr
    session_id = json.loads(first.stdout)["session_id"]

    compacted = run_cli("-p", "--resume", session_id, "/compact", "--output-format", "json", server=server)
    assert compacted.returncode == 1
    result = json.loads(compacted.stdout)
    assert result["is_error"] is True
    assert "Compaction not applied" in result["errors"][-1] and "unchanged" in result["errors"][-1]
    assert len(server.requests) == 1, "no summary was asked for"
    [path] = transcripts()
    assert "compact_boundary" not in path.read_text(encoding="utf-8")


def _write(path: Path, entries: list[dict]) -> None:
    path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries), encoding="utf-8")


def _compacted_session(decoy: bool) -> list[dict]:
    said = 'the text "subtype":"compact_boundary" typed by a user' if decoy else "plain"
    entries = [
        {"type": "user", "uuid": "a1", "message": {"role": "user", "content": f"old prompt {said}"}},
        {
            "type": "assistant",
            "uuid": "a2",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "old answer"}]},
        },
        {
            "type": "system",
            "uuid": "b1",
            "subtype": "compact_boundary",
            "compact_metadata": {"trigger": "manual", "pre_tokens": 9, "post_tokens": 3},
        },
        {
            "type": "user",
            "uuid": "s1",
            "isCompactSummary": True,
            "message": {"role": "user", "content": [{"type": "text", "text": f"{SUMMARY_HEADER} S"}]},
        },
        {
            "type": "assistant",
            "uuid": "r1",
            "isCompactReplay": True,
            "message": {"role": "assistant", "content": [{"type": "text", "text": "old answer"}]},
        },
        {"type": "user", "uuid": "n1", "message": {"role": "user", "content": f"new prompt {said}"}},
        {
            "type": "assistant",
            "uuid": "n2",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "new answer"}]},
        },
    ]
    return entries


def test_the_fast_path_reads_the_same_history_as_reading_every_line(tmp_path: Path, monkeypatch):
    from agentcli.session import load

    for decoy in (False, True):
        path = tmp_path / f"s{decoy}.jsonl"
        _write(path, _compacted_session(decoy))
        slow = load_transcript(path, keep_entries=True)
        for chunk in (1 << 20, 7, 64):  # the boundary's line split across read blocks, too
            monkeypatch.setattr(load, "_SCAN_CHUNK", chunk)
            assert load.last_boundary(path) == (path.read_bytes().index(b'{"type":"system","uuid":"b1"'), 2)
            fast = load_transcript(path)
            assert fast.messages == slow.messages
            assert fast.last_uuid == slow.last_uuid == "n2"
        assert first_text(fast.messages[0]).startswith(SUMMARY_HEADER)
        assert "old prompt" not in json.dumps(fast.messages)


def test_whole_reads_across_boundaries_without_the_repeats(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    _write(path, _compacted_session(False))
    whole = load_transcript(path, whole=True).messages
    assert [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"] for m in whole] == [
        "old prompt plain",
        "old answer",
        "new prompt plain",
        "new answer",
    ]


def test_no_boundary_no_fast_path(tmp_path: Path):
    from agentcli.session.load import last_boundary

    path = tmp_path / "s.jsonl"
    _write(path, _compacted_session(True)[:2])
    assert last_boundary(path) is None
    assert len(load_transcript(path).messages) == 2


def test_an_opened_session_shows_everything_but_sends_from_the_summary(tmp_path: Path, monkeypatch):
    from agentcli.config.paths import sessions_dir
    from agentcli.session.resume import open_session

    cwd = tmp_path / "project"
    cwd.mkdir()
    path = sessions_dir(cwd) / "0b4d1a52-7f43-4a8e-9d0e-1f3c5e6a7b8c.jsonl"
    path.parent.mkdir(parents=True)
    _write(path, _compacted_session(False))
    session = open_session(cwd, resume="0b4d1a52-7f43-4a8e-9d0e-1f3c5e6a7b8c")
    try:
        assert first_text(session.messages[0]).startswith(SUMMARY_HEADER)
        shown = json.dumps(session.whole_history())
        assert "old prompt plain" in shown and SUMMARY_HEADER not in shown
    finally:
        session.close()
