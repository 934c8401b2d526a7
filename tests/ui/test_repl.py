"""The inline REPL (``--plain``) driven in-process: keys go in through a prompt-toolkit pipe, output comes out of a
captured rich console, and the real engine and SDK talk to the fake Messages API."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agentcli.ui.history import PromptHistory
from agentcli.ui.repl.markdown import MarkdownTail
from agentcli.ui.repl.render import TurnView, make_console
from tests.conftest import collect
from tests.messages import typed
from tests.ui.conftest import text_turn, tool_turn
from tests.ui.repl_driver import CTRL_C, ENTER, ESCAPE, request_text

ANSWER = "Here is **the answer**:\n\n```python\nprint('hi')\n```\n\nDone."


async def test_a_prompt_streams_the_answer_into_the_scrollback(start_repl, tmp_path: Path):
    repl = start_repl([text_turn(ANSWER, chunks=12)])
    await repl.send("say hello")
    out = repl.output
    assert "Here is the answer:" in out and "print('hi')" in out and "Done." in out
    assert "✻" in out and "1 request · ↑" in out and "tokens · $" in out  # the end-of-turn line
    assert "say hello" in request_text(repl.server)
    assert json.loads((tmp_path / "history.jsonl").read_text().splitlines()[-1])["text"] == "say hello"
    session_id = repl.repl.engine.session_id
    assert await repl.leave() == 0
    assert f"agentcli --resume {session_id}" in repl.output
    assert repl.repl.engine is None  # closed with aclose("prompt_input_exit")


async def test_streaming_shows_the_tail_live_then_prints_the_markdown_once(start_repl):
    lines = "\n".join(f"- item number {n}" for n in range(40))
    # the answer stops half way until the test has seen its items live
    turn = {**text_turn(f"A long list:\n\n{lines}\n\nThe end.", chunks=40), "hold_after_events": 24}
    repl = start_repl([turn], terminal=True)
    await repl.idle()
    before = repl.repl.view.turns
    repl.type("list" + ENTER)
    await repl.wait_for("item number")
    repl.server.release()
    await repl.until(lambda: repl.repl.view.turns > before)
    await repl.idle()
    out = repl.output
    assert "Working…" in out  # the live region (erased at the end of the turn)
    assert out.count("item number") > 40  # items were on screen while they streamed, then printed once more
    final = [line.strip() for line in out[out.rindex("A long list:") :].splitlines()]
    assert all(f"• item number {n}" in final for n in range(40)) and "The end." in final


def test_the_live_frame_is_bounded_however_long_the_answer():
    console = make_console(io.StringIO(), width=80, height=30, terminal=True)
    view = TurnView(console)
    view.begin_turn()
    view.handle(_event({"type": "message_start", "message": {"id": "msg_1"}}))
    view.handle(_event({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}))
    for n in range(5000):
        view.handle(
            _event(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": f"line {n} of a long answer\n"},
                }
            )
        )
    frame = view._render_frame()
    assert len(frame.lines) <= console.height
    assert "line 4999" in "".join(segment.text for line in frame.lines for segment in line)
    view.handle(_event({"type": "content_block_stop", "index": 0}))
    view.end_turn()
    assert console.file.getvalue().count("line 0 of a long answer") == 1  # printed once, when the block closed


def _event(event: dict[str, Any]) -> dict[str, Any]:
    return {"type": "stream_event", "event": event}


def test_markdown_tail_reopens_a_code_fence_it_starts_inside():
    tail = MarkdownTail()
    for piece in ["intro\n\n```py", "thon\n", *[f"line {n}\n" for n in range(10)], "li", "ne 10"]:
        tail.append(piece)
    text, cut = tail.tail(3)
    assert cut and text.splitlines() == ["```python", "line 8", "line 9", "line 10"]
    tail.append("\n```\nafter\n")
    text, _ = tail.tail(2)
    assert text.splitlines() == ["```python", "```", "after"]  # the closing fence still has its opener
    assert tail.text.startswith("intro\n\n```python\nline 0")


async def test_a_tool_call_is_one_line_with_its_result(start_repl):
    repl = start_repl([tool_turn("Read", {"file_path": "README.md"}, "toolu_r"), text_turn("It is a demo.")])
    await repl.send("read it")
    assert "● Read(README.md)\n  ⎿  Read 3 lines" in repl.output
    assert "It is a demo." in repl.output


async def test_permission_allow_once(start_repl, project: Path, hermetic_home: Path):
    user = hermetic_home / "config" / "agentcli" / "settings.json"
    user.parent.mkdir(parents=True)
    notify = {"Notification": [{"hooks": [{"type": "command", "command": "cat > notified.json"}]}]}
    user.write_text(json.dumps({"hooks": notify}))
    write = {"file_path": "notes.md", "content": "hello\n"}
    repl = start_repl([tool_turn("Write", write, "toolu_w"), text_turn("written")])
    await repl.idle()
    repl.type("write" + ENTER)
    await repl.wait_for("Allow Write(notes.md)?")
    assert "2. Yes, and allow Edit for this session" in repl.output
    repl.type("1")
    await repl.wait_for("written")
    await repl.idle()
    assert (project / "notes.md").read_text() == "hello\n"
    assert "Allowed once" in repl.output and "⎿  Wrote 1 line" in repl.output
    await repl.until(lambda: (project / "notified.json").is_file() and (project / "notified.json").read_text())
    assert "permission to use Write" in json.loads((project / "notified.json").read_text())["message"]


async def test_permission_deny_with_a_reason_the_model_sees(start_repl, project: Path):
    write = {"file_path": "notes.md", "content": "hello\n"}
    repl = start_repl([tool_turn("Write", write, "toolu_w"), text_turn("ok, I won't")])
    await repl.idle()
    repl.type("write" + ENTER)
    await repl.wait_for("Allow Write(notes.md)?")
    repl.type("3")
    await repl.wait_for("What should agentcli do instead?")
    repl.type("put it in docs/ instead" + ENTER)
    await repl.wait_for("ok, I won't")
    await repl.idle()
    assert not (project / "notes.md").exists()
    assert "The user said: put it in docs/ instead" in request_text(repl.server)
    assert "Denied: put it in docs/ instead" in repl.output


async def test_ctrl_c_at_a_permission_question_denies_and_interrupts(start_repl, project: Path):
    repl = start_repl([tool_turn("Write", {"file_path": "notes.md", "content": "x\n"}, "toolu_w"), text_turn("no")])
    await repl.idle()
    repl.type("write" + ENTER)
    await repl.wait_for("Allow Write(notes.md)?")
    repl.type(CTRL_C)
    await repl.wait_for("Interrupted · tell agentcli what to do instead")
    await repl.idle()
    assert not (project / "notes.md").exists() and len(repl.server.requests) == 1


async def test_allow_for_the_session_does_not_ask_again(start_repl, project: Path):
    repl = start_repl(
        [
            tool_turn("Write", {"file_path": "a.md", "content": "a\n"}, "toolu_a"),
            tool_turn("Write", {"file_path": "b.md", "content": "b\n"}, "toolu_b"),
            text_turn("both"),
        ]
    )
    await repl.idle()
    repl.type("write two" + ENTER)
    await repl.wait_for("Allow Write(a.md)?")
    repl.type("2")
    await repl.wait_for("both")
    await repl.idle()
    assert (project / "b.md").exists() and "Allow Write(b.md)?" not in repl.output


@pytest.mark.parametrize("key", [ESCAPE, CTRL_C])
async def test_escape_or_ctrl_c_interrupts_the_running_turn(start_repl, key: str):
    sleep = {"command": "sleep 300", "description": "wait"}
    repl = start_repl([tool_turn("Bash", sleep, "toolu_s"), text_turn("never")], permission_mode="bypassPermissions")
    await repl.idle()
    repl.type("wait" + ENTER)
    await repl.until(lambda: any(t.running_since for t in repl.repl.view.tools.values()))
    repl.type(key)
    await repl.wait_for("Interrupted · tell agentcli what to do instead")
    await repl.idle()  # within the deadline: the command was stopped, not waited out
    await repl.send("go on")
    assert "Interrupted by user" in request_text(repl.server)


async def test_retries_and_warnings_are_one_line_each(start_repl, hermetic_home: Path):
    user = hermetic_home / "config" / "agentcli" / "settings.json"
    user.parent.mkdir(parents=True)
    say = """echo '{"systemMessage": "mind the gap"}'"""
    user.write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": say}]}]}}))
    busy = {"fault": {"kind": "http", "status": 503, "message": "busy"}}
    repl = start_repl([busy, text_turn("made it")])
    await repl.send("try")
    assert "⚠ mind the gap\n" in repl.output
    assert "⎿  Retrying in " in repl.output and " s · attempt 1/" in repl.output and "made it" in repl.output


async def test_trust_prompt_yes_trusts_the_folder_and_runs_its_hooks(start_repl, project: Path):
    from agentcli.config.trust import is_trusted

    hook = {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch hook-ran"}]}]}}
    (project / ".agentcli").mkdir()
    (project / ".agentcli" / "settings.json").write_text(json.dumps(hook))
    repl = start_repl([text_turn("hi")])
    await repl.wait_for("Do you trust this folder?")
    assert "1 hook(s) in .agentcli/settings.json" in " ".join(repl.output.split())
    repl.type("1")
    await repl.send("hello")
    assert is_trusted(project) and (project / "hook-ran").exists()


async def test_trust_prompt_no_runs_without_project_hooks(start_repl, project: Path):
    from agentcli.config.trust import is_trusted

    hook = {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch hook-ran"}]}]}}
    (project / ".agentcli").mkdir()
    (project / ".agentcli" / "settings.json").write_text(json.dumps(hook))
    repl = start_repl([text_turn("hi")])
    await repl.wait_for("Do you trust this folder?")
    repl.type("2")
    await repl.send("hello")
    assert (
        "not trusted, so agentcli ignored part of its project settings (.agentcli/settings.json: 1 hook)"
        in " ".join(repl.output.split())
    )
    assert not is_trusted(project) and not (project / "hook-ran").exists()


async def test_resume_without_an_id_offers_a_numbered_menu(start_repl, make_engine, fake_api):
    earlier = fake_api({"turns": [text_turn("the earlier answer")]})
    engine = make_engine(earlier)
    await collect(engine, "an earlier question")
    engine.config.recorder.close()  # that run is over: the session is free to resume
    repl = start_repl([text_turn("continuing")], pick_resume=True)
    await repl.wait_for("Which one?")
    assert "1. " in repl.output and "an earlier question" in repl.output and "2 messages" in repl.output
    repl.type("1" + ENTER)
    await repl.wait_for(f"Resumed session {engine.session_id}")
    assert "the earlier answer" in repl.output  # the end of the conversation, replayed
    await repl.send("and then")
    assert "an earlier question" in request_text(repl.server)
    assert repl.repl.engine.session_id == engine.session_id


async def test_export_writes_the_conversation_as_markdown(start_repl, project: Path):
    repl = start_repl([text_turn("The answer is 42.")])
    await repl.send("what is the answer?")
    await repl.idle()
    repl.type("/export notes/chat.md" + ENTER)
    await repl.wait_for("Exported the conversation (2 messages) to")
    text = (project / "notes" / "chat.md").read_text()
    assert "## You\n\nwhat is the answer?" in text and "The answer is 42." in text


async def test_hooks_command_lists_hooks_by_event_with_their_file(start_repl, hermetic_home: Path, project: Path):
    user = hermetic_home / "config" / "agentcli" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo checked", "timeout": 5}]}
                    ]
                }
            }
        )
    )
    repl = start_repl([])
    await repl.idle()
    repl.type("/hooks" + ENTER)
    await repl.wait_for("$ echo checked")
    assert "PreToolUse\n" in repl.output
    assert "matcher Bash · timeout 5 s · ~/config/agentcli/settings.json" in " ".join(repl.output.split())


async def test_help_unknown_commands_and_clear(start_repl):
    repl = start_repl([text_turn("first answer")])
    await repl.send("the first prompt")
    first_id = repl.repl.engine.session_id
    await repl.idle()
    repl.type("/hel" + ENTER)  # Enter takes the command the prefix completes to
    await repl.wait_for("/export")
    repl.type("/nope" + ENTER)
    await repl.wait_for("Unknown command /nope")
    repl.type("/cost" + ENTER)
    await repl.wait_for("Session cost $")
    repl.type("/clear" + ENTER)
    await repl.wait_for(f"Started a new session (the last one: agentcli --resume {first_id})")
    engine = repl.repl.engine
    assert engine.session_id != first_id and engine.messages == []
    await repl.send("second")
    assert typed(repl.server.requests[-1].body["messages"]) == [{"role": "user", "content": "second"}]
    assert len(repl.server.requests) == 2  # the slash commands never went to the model


async def test_ctrl_c_clears_the_prompt_and_ctrl_d_leaves(start_repl):
    repl = start_repl([text_turn("fine")])
    await repl.idle()
    repl.type("half a thought")
    repl.type(CTRL_C)
    await repl.send("hello")
    assert '"hello"' in request_text(repl.server) and "half a thought" not in request_text(repl.server)
    repl.type(CTRL_C)
    await repl.wait_for("(ctrl+d or /exit to leave)")
    assert await repl.leave() == 0


async def test_up_recalls_the_history_shared_with_earlier_sessions(start_repl, tmp_path: Path, project: Path):
    PromptHistory(tmp_path / "history.jsonl", project).add("a prompt from yesterday")
    repl = start_repl([text_turn("recalled")])
    await repl.idle()
    repl.type("\x1b[A" + ENTER)  # up, Enter
    await repl.wait_for("recalled")
    assert "a prompt from yesterday" in request_text(repl.server)


async def test_broken_settings_are_shown_once_and_skipped(start_repl, project: Path):
    (project / ".agentcli").mkdir()
    (project / ".agentcli" / "settings.local.json").write_text('{"model": ')
    repl = start_repl([text_turn("still works")])
    await repl.send("hi")
    unfolded = repl.output.replace("\n", "")  # the path may be longer than the line and folded anywhere
    assert unfolded.count("settings.local.json") == 1 and "not valid JSON" in unfolded
    assert "still works" in repl.output


async def test_a_session_open_elsewhere_is_offered_as_a_fork(start_repl, make_engine, fake_api):
    holder = make_engine(fake_api({"turns": [text_turn("the earlier answer")]}))
    await collect(holder, "an earlier question")  # its transcript stays locked, as by a running agentcli
    session_id = holder.session_id
    repl = start_repl([text_turn("in the fork")], resume=session_id)
    await repl.wait_for("Fork it")
    assert f"Session {session_id} is open in this agentcli process already" in repl.output
    repl.type("1")
    await repl.send("and then")
    engine = repl.repl.engine
    assert engine.session_id != session_id
    assert [m["content"] for m in typed(engine.messages) if m["role"] == "user"] == ["an earlier question", "and then"]
    holder.config.recorder.close()


async def test_a_prompt_on_the_command_line_is_the_first_turn(start_repl):
    """``agentcli --plain "PROMPT"`` runs the prompt, then waits at the prompt for more."""
    repl = start_repl([text_turn("first answer")], first_prompt="begin here")
    await repl.wait_for("first answer")
    await repl.idle()
    assert "❯ begin here" in repl.output and not repl.task.done()
    assert "begin here" in json.dumps(repl.server.requests[-1].body)


async def test_a_long_command_is_shown_whole_at_the_permission_question(start_repl, project: Path):
    """--plain used to cut the command being approved at the terminal's edge."""
    command = "touch " + " ".join(f"file{n}" for n in range(40)) + " && echo the-very-end"
    repl = start_repl([tool_turn("Bash", {"command": command, "description": "long"}, "toolu_b"), text_turn("ok")])
    await repl.idle()
    repl.type("run" + ENTER)
    await repl.wait_for("1. Yes, allow once")
    assert "the-very-end" in repl.output
    repl.type("3" + ENTER)
    await repl.wait_for("Denied")


async def test_an_edit_is_shown_as_a_diff_at_the_permission_question(start_repl, project: Path):
    edit = {"file_path": "src/app.py", "old_string": "return a + b", "new_string": "return b + a"}
    repl = start_repl([tool_turn("Edit", edit, "toolu_e"), text_turn("ok")])
    await repl.idle()
    repl.type("edit" + ENTER)
    await repl.wait_for("1. Yes, allow once")
    assert "-    return a + b" in repl.output and "+    return b + a" in repl.output
    repl.type("1")
    await repl.wait_for("ok")


async def test_memory_opens_the_existing_memory_file_in_the_editor(
    start_repl, project: Path, tmp_path: Path, monkeypatch
):
    (project / "CLAUDE.md").write_text("Use tabs.\n")  # only CLAUDE.md: that one is the project's memory file
    editor = tmp_path / "fake-editor"
    editor.write_text('#!/bin/sh\necho "Never push to main." >> "$1"\n')
    editor.chmod(0o755)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(editor))
    repl = start_repl([text_turn("ok")])
    repl.type("/memory" + ENTER)
    await repl.wait_for("Memory file:")
    assert (project / "CLAUDE.md").read_text() == "Use tabs.\nNever push to main.\n"
    assert not (project / "AGENTS.md").exists()


async def test_rewind_restores_the_conversation_and_the_files(start_repl, project: Path):
    """/rewind in --plain: a numbered list of prompts, then 1/2/3 for what goes back, as in the full-screen face."""
    notes = project / "notes.txt"
    repl = start_repl(
        [
            tool_turn("Write", {"file_path": str(notes), "content": "v1\n"}, "toolu_w"),
            text_turn("wrote it"),
            tool_turn("Edit", {"file_path": str(notes), "old_string": "v1", "new_string": "v2"}, "toolu_e"),
            text_turn("edited it"),
            text_turn("fresh answer"),
        ],
        permission_mode="acceptEdits",
    )
    await repl.send("make notes")
    await repl.send("change notes")
    assert notes.read_text() == "v2\n"
    first_id = repl.repl.engine.session_id
    repl.type("/rewind" + ENTER)
    await repl.wait_for("2. change notes  (1 file changed)")
    repl.type("2" + ENTER)
    await repl.wait_for("1. Restore the conversation and the files")
    repl.type("1")
    await repl.wait_for("The conversation is back to before that prompt; restored 1 file.")
    assert notes.read_text() == "v1\n" and repl.repl.engine.session_id != first_id
    await repl.send("something else")
    sent = request_text(repl.server)
    assert "make notes" in sent and "something else" in sent and "change notes" not in sent


async def test_a_pasted_image_path_is_sent_as_an_image_in_plain(start_repl, project: Path):
    """Dropping a screenshot on the terminal types its path: the model gets the picture, not the path alone."""
    shot = project / "shot.png"
    shot.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 52)
    repl = start_repl([text_turn("a tiny image")])
    await repl.send(f"what is in {shot}")
    content = repl.server.requests[-1].body["messages"][-1]["content"]
    images = [block for block in content if block.get("type") == "image"]
    assert len(images) == 1 and images[0]["source"]["media_type"] == "image/png"
