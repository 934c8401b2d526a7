"""Pilot tests of /export, /hooks, /resume, hook errors and the hooks the interface triggers (Notification when a
permission dialog opens, SessionEnd on exit), on the real engine against the fake Messages API."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.ui.tui.widgets.markdown_view import MarkdownView
from agentcli.ui.tui.widgets.user_prompt import UserPrompt
from tests.conftest import hook_entry
from tests.messages import sent_text
from tests.ui.conftest import (
    SIZE,
    idle,
    ready,
    screen_text,
    send,
    started,
    text_turn,
    tool_turn,
    type_text,
    wait_for,
    wait_for_text,
)


def last_notice(app) -> str:
    from agentcli.ui.tui.widgets.notice import NoticeLine

    return app.conversation.query(NoticeLine).last().notice_text


async def test_export_writes_the_conversation_as_markdown(make_app, project: Path):
    app, _server = make_app([text_turn("Here is **the answer**.")])
    async with started(app) as pilot:
        await send(pilot, "what is up")
        await idle(pilot)
        await send(pilot, "/export")
        await wait_for_text(pilot, "Exported the conversation (2 messages)")
        default = project / f"agentcli-conversation-{app.session_id[:8]}.md"
        assert default.exists()
        assert last_notice(app) == f"Exported the conversation (2 messages) to {default}"
        await send(pilot, "/export notes/chat.md")
        await wait_for(pilot, lambda: (project / "notes" / "chat.md").exists())
    text = default.read_text()
    assert "## You" in text and "what is up" in text and "Here is **the answer**." in text
    assert (project / "notes" / "chat.md").read_text() == text


async def test_export_before_anything_was_said(make_app, project: Path):
    app, server = make_app([text_turn("unused")])
    async with started(app) as pilot:
        await send(pilot, "/export")
        await wait_for_text(pilot, "Nothing to export yet")
    assert not list(project.glob("agentcli-conversation-*.md")) and server.requests == []


async def test_hooks_lists_each_hook_and_notes_untrusted_project_hooks(make_app, project: Path):
    from agentcli.ui.tui.screens.trust import TrustScreen

    user_settings = Path.home() / "config" / "agentcli" / "settings.json"
    user_settings.parent.mkdir(parents=True, exist_ok=True)
    user_settings.write_text(
        json.dumps(
            {
                "hooks": {
                    **hook_entry("PreToolUse", "./check-bash.sh", matcher="Bash", timeout=10),
                    **hook_entry("Stop", "notify-send done"),
                }
            }
        )
    )
    (project / ".agentcli").mkdir()
    (project / ".agentcli" / "settings.json").write_text(json.dumps({"hooks": hook_entry("Stop", "make lint")}))
    app, _server = make_app([text_turn("ok")])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.press("escape")  # don't trust the folder
        await ready(pilot)
        await send(pilot, "/hooks")
        text = await wait_for_text(pilot, "Hooks (2)", "not trusted")
    assert "PreToolUse" in text and "matcher Bash · timeout 10 s · ~/config/agentcli/settings.json" in text
    assert "$ ./check-bash.sh" in text
    assert "Stop" in text and "matcher * · timeout 60 s" in text and "$ notify-send done" in text
    assert "make lint" not in text
    assert "1 project hook(s) skipped: this folder is not trusted" in text


async def test_stop_hook_error_shows_a_notice_and_the_details_in_ctrl_o(make_app):
    flag = json.dumps({"hooks": hook_entry("Stop", "echo checking; echo 'lint failed' >&2; exit 1")})
    app, _server = make_app([text_turn("done")], settings_flag=flag)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await idle(pilot)
        text = await wait_for_text(pilot, "Stop hook error · ctrl+o to see")
        assert "lint failed" not in text
        await pilot.press("ctrl+o")
        text = await wait_for_text(pilot, "Stop hooks · 1 ran · failed", "error: exited with status 1")
    assert "Stop hooks · 1 ran · failed" in text
    assert "$ echo checking; echo 'lint failed' >&2; exit 1" in text
    assert "exit 1 ·" in text and "stdout:" in text and "checking" in text
    assert "stderr:" in text and "lint failed" in text
    assert "error: exited with status 1" in text


async def test_permission_dialog_runs_notification_hooks(make_app, project: Path, tmp_path: Path):
    from agentcli.ui.tui.screens.permission import PermissionScreen

    marker = tmp_path / "notified.json"
    flag = json.dumps({"hooks": hook_entry("Notification", f"cat > {marker}")})
    write = {"file_path": "notes.md", "content": "hi\n"}
    app, _server = make_app([tool_turn("Write", write, "toolu_w"), text_turn("written")], settings_flag=flag)
    async with started(app) as pilot:
        await send(pilot, "write it")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await wait_for(pilot, lambda: marker.exists() and marker.read_text().strip().endswith("}"))
        await pilot.press("1")
        await idle(pilot)
    sent = json.loads(marker.read_text())
    assert sent["hook_event_name"] == "Notification"
    assert sent["message"] == "agentcli needs your permission to use Write" and sent["title"] == "Permission needed"


async def test_exiting_runs_session_end_hooks(make_app, tmp_path: Path, unhurried_double_press):
    marker = tmp_path / "ended.json"
    flag = json.dumps({"hooks": hook_entry("SessionEnd", f"cat > {marker}")})
    app, _server = make_app([text_turn("hello")], settings_flag=flag)
    async with started(app) as pilot:
        await send(pilot, "hi")
        await idle(pilot)
        await pilot.press("ctrl+d", "ctrl+d")
        await wait_for(pilot, lambda: not app.is_running)
    assert json.loads(marker.read_text())["reason"] == "prompt_input_exit"


async def test_resume_switches_to_an_earlier_session_in_place(make_app, make_engine, fake_api):
    from agentcli.ui.tui.screens.resume_picker import ResumePicker
    from tests.conftest import collect

    earlier = fake_api({"turns": [text_turn("the earlier answer")]})
    engine = make_engine(earlier)
    await collect(engine, "an earlier question")
    engine.config.recorder.close()  # that run is over: the session is free to resume
    earlier_id = engine.session_id
    app, server = make_app([text_turn("a fresh answer"), text_turn("continuing")])
    async with started(app) as pilot:
        await send(pilot, "a fresh question")
        await idle(pilot)
        first_id = app.session_id
        await send(pilot, "/resume")
        await wait_for(pilot, lambda: isinstance(app.screen, ResumePicker))
        await wait_for_text(pilot, "an earlier question", "Esc to stay in this session")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session_id == earlier_id and app._engine_ready.is_set())
        text = await wait_for_text(pilot, "the earlier answer")
        assert "a fresh question" not in text
        assert last_notice(app) == f"Switched to session {earlier_id}. The previous one: agentcli --resume {first_id}"
        await send(pilot, "and then")
        await idle(pilot)
        assert [w.prompt_text for w in app.conversation.query(UserPrompt)] == ["an earlier question", "and then"]
        assert app.conversation.query(MarkdownView).last().source == "continuing"
    body = json.dumps(server.requests[-1].body)
    assert "an earlier question" in body and "a fresh question" not in body


async def test_resume_with_no_other_session_keeps_this_one(make_app):
    app, _server = make_app([text_turn("ok")])
    async with started(app) as pilot:
        session_id = app.session_id
        await send(pilot, "/resume")
        await wait_for(pilot, lambda: "No other session in this folder" in screen_text(app))
        assert app.session_id == session_id


async def test_new_commands_are_completed_and_listed_in_help(make_app):
    app, _server = make_app([text_turn("ok")])
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot)
        await type_text(pilot, "/ex")
        await wait_for_text(pilot, "/export", "Save the conversation as Markdown", "/exit")
        await pilot.press("tab")
        assert app.prompt_input.text == "/export "
        app.prompt_input.clear_prompt()
        await send(pilot, "/help")
        await wait_for_text(pilot, "/export", "/hooks", "/resume")


async def test_a_session_open_elsewhere_is_offered_as_a_fork(make_app, make_engine, fake_api):
    from agentcli.ui.tui.screens.fork import ForkScreen
    from tests.conftest import collect

    holder = make_engine(fake_api({"turns": [text_turn("the earlier answer")]}))
    await collect(holder, "an earlier question")  # its transcript stays locked, as by a running agentcli
    app, server = make_app([text_turn("in the fork")], resume=holder.session_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ForkScreen))

        def shown() -> str:
            return " ".join(screen_text(app).replace("│", " ").split())

        await wait_for(pilot, lambda: "is open in this agentcli process already" in shown() and "Fork it" in shown())
        await pilot.press("enter")  # the first choice: fork it
        await wait_for(pilot, lambda: app._engine_ready.is_set())
        assert app.session_id not in (None, holder.session_id)
        await send(pilot, "and then")
        await idle(pilot)
    body = json.dumps(server.requests[-1].body)
    assert "an earlier question" in body and "and then" in body
    holder.config.recorder.close()


async def test_completion_shows_argument_hints_in_brackets(make_app):
    """The menu used to read "[FILE]" as markup and drop it."""
    app, _server = make_app([text_turn("ok")])
    async with started(app) as pilot:
        await type_text(pilot, "/expo")
        await wait_for(pilot, lambda: "[FILE]" in screen_text(app))


async def test_an_unknown_command_suggests_the_closest_one(make_app):
    app, server = make_app([text_turn("ok")])
    async with started(app) as pilot:
        await type_text(pilot, "/stauts")
        await pilot.press("escape", "enter")
        await wait_for(pilot, lambda: "Did you mean /status?" in screen_text(app))
    assert server.requests == []


async def test_clear_starts_a_new_session_in_the_tui(make_app):
    app, server = make_app([text_turn("first"), text_turn("second")])
    async with started(app) as pilot:
        await send(pilot, "hello")
        await idle(pilot)
        first = app.session_id
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: app.session_id != first and app._engine_ready.is_set())
        await wait_for(pilot, lambda: f"agentcli --resume {first}" in last_notice(app))
        assert "hello" not in screen_text(app)
        await send(pilot, "again")
        await idle(pilot)
    assert len(server.requests[-1].body["messages"]) == 1


async def test_clear_drops_shell_output_waiting_for_the_next_prompt(make_app):
    """``!cmd`` output goes with the next prompt of its conversation, never into the one /clear starts."""
    app, server = make_app([text_turn("fresh")])
    async with started(app) as pilot:
        await send(pilot, "!echo before-clear")
        await wait_for(pilot, lambda: app._shell_context)
        first = app.session_id
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: app.session_id != first and app._engine_ready.is_set())
        await send(pilot, "hello")
        await idle(pilot)
    assert "before-clear" not in sent_text(server.requests[-1].body["messages"][-1])


async def test_status_permissions_context_and_model(make_app):
    app, _server = make_app([text_turn("ok")], allowed_tools=["Bash(git log:*)"])
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot)
        await send(pilot, "/status")
        await wait_for(pilot, lambda: f"Session      {app.session_id}" in screen_text(app))
        await send(pilot, "/permissions")
        await wait_for(pilot, lambda: "Bash(git log:*)   (cliArg)" in screen_text(app))
        await send(pilot, "/context")
        await wait_for(pilot, lambda: "Context: " in screen_text(app) and "System prompt" in screen_text(app))
        await send(pilot, "/model claude-haiku-5-5")
        await wait_for(pilot, lambda: "Model set to claude-haiku-5-5" in screen_text(app))
        assert app.engine.config.model == "claude-haiku-5-5"


async def test_the_status_line_reads_the_context_share_against_the_settings_window(make_app, project: Path):
    """With ``contextWindow`` set, "ctx N%" is measured against it (as /context is), not the model's default."""
    (project / ".agentcli").mkdir(exist_ok=True)
    (project / ".agentcli" / "settings.json").write_text(json.dumps({"contextWindow": 20_000}), encoding="utf-8")
    turn = {**text_turn("ok"), "usage": {"input_tokens": 5_000}}
    app, _server = make_app([turn])
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: "ctx 25%" in str(app.status.render()))


async def test_memory_creates_the_project_memory_file_and_opens_it_in_the_editor(
    make_app, project: Path, tmp_path: Path, monkeypatch
):
    editor = tmp_path / "fake-editor"
    editor.write_text('#!/bin/sh\necho "Run make check before you finish." >> "$1"\n')
    editor.chmod(0o755)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(editor))
    app, _server = make_app([text_turn("ok")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/memory")
        await wait_for_text(pilot, "Memory file:")
    text = (project / "AGENTS.md").read_text()
    assert text.startswith("# AGENTS.md") and text.endswith("Run make check before you finish.\n")
