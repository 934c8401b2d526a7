"""Pilot tests of the full-screen interface on the real engine and SDK, against the fake Messages API."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.ui.history import PromptHistory
from agentcli.ui.tui.widgets.markdown_view import MarkdownView
from agentcli.ui.tui.widgets.tool_call import ToolCallBlock
from agentcli.ui.tui.widgets.user_prompt import UserPrompt
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

ANSWER = "Here is **the answer**:\n\n```python\nprint('hi')\n```\n\nDone."


def request_text(server, index: int = -1) -> str:
    return json.dumps(server.requests[index].body)


async def test_typing_and_sending_streams_the_answer(make_app):
    app, server = make_app([text_turn(ANSWER, chunks=12)])
    async with started(app) as pilot:
        await type_text(pilot, "hello there")
        assert app.prompt_input.text == "hello there"
        await pilot.press("enter")
        await idle(pilot)
        assert app.prompt_input.text == ""
        prompts = [w.prompt_text for w in app.conversation.query(UserPrompt)]
        assert prompts == ["hello there"]
        answer = app.conversation.query(MarkdownView).last()
        assert answer.source == ANSWER and answer.finished
        await wait_for_text(pilot, "print('hi')", "the answer", "$0.0", "claude-sonnet-5-5")
    assert "hello there" in request_text(server)


async def test_shift_enter_and_ctrl_j_add_lines(make_app):
    app, server = make_app([text_turn("ok")])
    async with started(app) as pilot:
        await type_text(pilot, "one")
        await pilot.press("shift+enter")
        await type_text(pilot, "two")
        await pilot.press("ctrl+j")
        await type_text(pilot, "three")
        assert app.prompt_input.text == "one\ntwo\nthree"
        await pilot.press("enter")
        await idle(pilot)
    assert "one\\ntwo\\nthree" in request_text(server)


async def test_enter_while_busy_queues_the_message(make_app, project: Path):
    # The first turn runs a command that waits for a file the test writes once the second prompt is queued.
    hold = {"command": "while [ ! -e release ]; do sleep 0.05; done", "description": "wait"}
    app, server = make_app(
        [tool_turn("Bash", hold, "toolu_hold"), text_turn("first answer"), text_turn("second answer")],
        allowed_tools=["Bash"],
    )
    async with started(app) as pilot:
        await send(pilot, "first")
        await wait_for(pilot, lambda: app.busy)
        await send(pilot, "second")
        assert app.status.state.queued == 1
        await wait_for_text(pilot, "1 queued")
        queued = app.conversation.query(UserPrompt).last()
        assert queued.has_class("-queued")
        (project / "release").touch()
        await idle(pilot)
        assert not queued.has_class("-queued")
        assert [w.source for w in app.conversation.query(MarkdownView)][-1] == "second answer"
    assert len(server.requests) == 3 and "second" in request_text(server)


async def test_queued_messages_can_be_edited_until_sent(make_app, project: Path):
    """↑ on an empty prompt takes the queued messages back into the input; what is sent is the edited text."""
    hold = {"command": "while [ ! -e release ]; do sleep 0.05; done", "description": "wait"}
    app, server = make_app(
        [tool_turn("Bash", hold, "toolu_hold"), text_turn("first answer"), text_turn("second answer")],
        allowed_tools=["Bash"],
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_text(pilot, "first")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.busy)
        await type_text(pilot, "secnd")
        await pilot.press("enter")
        await wait_for_text(pilot, "1 queued (↑ to edit)")
        await pilot.press("up")
        assert app.prompt_input.text == "secnd" and app.status.state.queued == 0
        assert not [w for w in app.conversation.query(UserPrompt) if w.has_class("-queued")]
        await pilot.press("backspace", "backspace", "backspace", "backspace")
        await type_text(pilot, "econd")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.status.state.queued == 1)
        (project / "release").touch()
        await idle(pilot)
    assert len(server.requests) == 3 and "second" in request_text(server) and "secnd" not in request_text(server)


async def test_escape_interrupts_a_running_tool(make_app):
    slow = {"command": "echo started; sleep 20", "description": "wait"}
    app, server = make_app([tool_turn("Bash", slow, "toolu_slow"), text_turn("after the interrupt")])
    async with started(app) as pilot:
        await send(pilot, "run it")
        await wait_for(pilot, lambda: (t := app.conversation.tool("toolu_slow")) is not None and t.state == "running")
        await wait_for_text(pilot, "started", "Running…")
        await pilot.press("escape")
        await idle(pilot)
        await wait_for_text(pilot, "Interrupted")
        assert not app.conversation.tool("toolu_slow").running
        await send(pilot, "go on")
        await idle(pilot)
    assert "Interrupted by user" in request_text(server)


async def test_ctrl_o_opens_and_closes_the_transcript_while_streaming(make_app):
    from agentcli.ui.tui.screens.transcript import TranscriptScreen

    long_text = "".join(f"Paragraph {n} of a long answer.\n\n" for n in range(40))
    # the answer stops after about 200 characters until the test lets it go on: it is surely still streaming
    app, server = make_app([{**text_turn(long_text, chunks=200), "hold_after_events": 40}])
    async with started(app) as pilot:
        await send(pilot, "tell me")
        await wait_for(pilot, lambda: "Paragraph 2" in app.conversation.query(MarkdownView).last().source)
        await pilot.press("ctrl+o")
        assert isinstance(app.screen, TranscriptScreen)
        await wait_for(pilot, lambda: app.screen.conversation.query(MarkdownView))
        detailed = app.screen.conversation.query(MarkdownView).last()
        await wait_for(pilot, lambda: "Paragraph 2" in detailed.source)
        assert app.busy
        seen = len(detailed.source)
        server.release()
        await wait_for(pilot, lambda: len(detailed.source) > seen + 50)  # what streams in while open is shown
        await pilot.press("ctrl+o")
        assert not isinstance(app.screen, TranscriptScreen)
        await pilot.press("ctrl+o")
        assert isinstance(app.screen, TranscriptScreen)
        await idle(pilot)
        assert app.screen.conversation.query(MarkdownView).last().source == long_text
        await pilot.press("q")
        assert not isinstance(app.screen, TranscriptScreen)
        assert app.conversation.query(MarkdownView).last().source == long_text


async def test_transcript_shows_full_tool_input_and_output(make_app, project: Path):
    app, _server = make_app([tool_turn("Read", {"file_path": "src/app.py"}, "toolu_read"), text_turn("read it")])
    async with app.run_test(size=(120, 60)) as pilot:
        await ready(pilot)
        await send(pilot, "read")
        await idle(pilot)
        text = await wait_for_text(pilot, "Read 2 lines")
        assert "return a + b" not in text
        await pilot.press("ctrl+o")
        await wait_for_text(pilot, "return a + b", '"file_path": "src/app.py"', "✻ ", "2 requests")


async def test_permission_dialog_allow_once(make_app, project: Path):
    from agentcli.ui.tui.screens.permission import PermissionScreen

    write = {"file_path": "notes.md", "content": "hello\n"}
    app, _server = make_app([tool_turn("Write", write, "toolu_w"), text_turn("written")])
    async with started(app) as pilot:
        await send(pilot, "write")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await wait_for_text(pilot, "Allow Write(notes.md)?")
        await pilot.press("1")
        await idle(pilot)
        assert (project / "notes.md").read_text() == "hello\n"
        await wait_for_text(pilot, "Wrote 1 line")


async def test_permission_dialog_deny_with_a_reason(make_app, project: Path):
    from agentcli.ui.tui.screens.permission import PermissionScreen

    write = {"file_path": "notes.md", "content": "hello\n"}
    app, server = make_app([tool_turn("Write", write, "toolu_w"), text_turn("ok, I won't")])
    async with started(app) as pilot:
        await send(pilot, "write")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press("3")
        await send(pilot, "use docs/ instead")
        await idle(pilot)
    assert not (project / "notes.md").exists()
    assert "use docs/ instead" in request_text(server)


async def test_permission_allow_for_session_does_not_ask_again(make_app, project: Path):
    from agentcli.ui.tui.screens.permission import PermissionScreen

    first = {"file_path": "a.md", "content": "a\n"}
    second = {"file_path": "b.md", "content": "b\n"}
    app, _server = make_app(
        [tool_turn("Write", first, "toolu_a"), tool_turn("Write", second, "toolu_b"), text_turn("both written")]
    )
    async with started(app) as pilot:
        await send(pilot, "write both")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press("2")
        await idle(pilot)
        assert (project / "a.md").exists() and (project / "b.md").exists()


async def test_shift_tab_cycles_the_permission_mode(make_app):
    app, _server = make_app([text_turn("ok")])
    async with started(app) as pilot:
        seen = []
        for _ in range(2):
            await pilot.press("shift+tab")
            seen.append(app.status.state.mode)
        assert seen == ["acceptEdits", "plan"]
        await pilot.press("shift+tab")  # bypassPermissions is confirmed first; Esc says no
        await wait_for_text(pilot, "Bypass permissions?")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.status.state.mode == "default")
        for _ in range(3):
            await pilot.press("shift+tab")
        await wait_for_text(pilot, "Bypass permissions?")
        await pilot.press("up", "enter")
        await wait_for(pilot, lambda: app.engine.config.permission_mode == "bypassPermissions")
        for _ in range(4):  # confirmed once: the next time round there is no question
            await pilot.press("shift+tab")
        assert app.status.state.mode == "bypassPermissions" and "Bypass permissions?" not in screen_text(app)
        await pilot.press("shift+tab", "shift+tab")
        assert app.engine.config.permission_mode == "acceptEdits"
        await wait_for_text(pilot, "acceptEdits")


async def test_history_is_persisted_and_recalled(make_app, tmp_path: Path):
    path = tmp_path / "hist.jsonl"
    app, _server = make_app([text_turn("one"), text_turn("two")], history=PromptHistory(path))
    async with started(app) as pilot:
        for prompt in ("alpha prompt", "beta prompt"):
            await send(pilot, prompt)
            await idle(pilot)
    assert [json.loads(line)["text"] for line in path.read_text().splitlines()] == ["alpha prompt", "beta prompt"]
    app, _server = make_app([text_turn("three")], history=PromptHistory(path))
    async with started(app) as pilot:
        await pilot.press("up")
        assert app.prompt_input.text == "beta prompt"
        await pilot.press("up")
        assert app.prompt_input.text == "alpha prompt"
        await pilot.press("down", "down")
        assert app.prompt_input.text == ""
        await pilot.press("ctrl+r")
        await send(pilot, "alp")
        assert app.prompt_input.text == "alpha prompt"


async def test_slash_completion_and_theme_command(make_app):
    app, _server = make_app([text_turn("ok")])
    async with started(app) as pilot:
        await type_text(pilot, "/th")
        menu = app.query_one("#completions")
        assert menu.has_class("-visible")
        await wait_for_text(pilot, "theme")
        await pilot.press("tab")
        assert app.prompt_input.text == "/theme "
        await type_text(pilot, "li")
        await pilot.press("tab")
        assert app.prompt_input.text == "/theme light"
        await pilot.press("enter")
        await wait_for_text(pilot, "Theme set to light")
        assert app.theme == "light"
    settings = json.loads((Path.home() / "config" / "agentcli" / "settings.json").read_text())
    assert settings["theme"] == "light"


async def test_unknown_slash_command_is_not_sent(make_app):
    app, server = make_app([text_turn("ok")])
    async with started(app) as pilot:
        await type_text(pilot, "/nope")
        await pilot.press("escape", "enter")
        await wait_for_text(pilot, "Unknown command /nope")
        await send(pilot, "/help")
        await wait_for_text(pilot, "ctrl+o detailed transcript")
    assert server.requests == []


async def test_at_path_completion(make_app):
    app, server = make_app([text_turn("ok")])
    async with started(app) as pilot:
        await type_text(pilot, "look at @src/a")
        await wait_for_text(pilot, "@src/app.py")
        await pilot.press("tab")
        assert app.prompt_input.text == "look at @src/app.py "
        await pilot.press("enter")
        await idle(pilot)
    assert "@src/app.py" in request_text(server)


async def test_bang_runs_a_shell_command_and_tells_the_model(make_app):
    app, server = make_app([text_turn("I see the output")])
    async with started(app) as pilot:
        await send(pilot, "!echo shell-says-hi")
        await app.workers.wait_for_complete()
        await wait_for(
            pilot,
            lambda: (
                app.conversation.query(ToolCallBlock)
                and app.conversation.query(ToolCallBlock).last().result is not None
            ),
        )
        block = app.conversation.query(ToolCallBlock).last()
        assert "shell-says-hi" in block.result["content"]
        assert server.requests == []
        await send(pilot, "what did it print")
        await idle(pilot)
    sent = request_text(server)
    assert "shell-says-hi" in sent and "bash-input" in sent


async def test_bang_output_stays_in_the_main_view(make_app):
    """A command the user ran with ``!`` shows its output lines, not only a count of them."""
    app, _ = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_text(pilot, "!echo first-line; echo second-line")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.conversation.query(ToolCallBlock).last().result is not None)

        def lines() -> list[str]:
            return [line.strip() for line in screen_text(app).splitlines()]

        await wait_for(pilot, lambda: "first-line" in lines() and "second-line" in lines())  # not the typed command


async def test_bang_commands_run_in_the_sandbox(make_app, project: Path, tmp_path: Path):
    outside = tmp_path / "bang-outside"
    app, _server = make_app([text_turn("ok")])
    async with started(app) as pilot:
        await send(pilot, f"!touch inside-bang; touch {outside} /usr/bang-outside")
        await wait_for(pilot, lambda: app.conversation.query(ToolCallBlock).last().result is not None)
        block = app.conversation.query(ToolCallBlock).last()
        assert "Read-only file system" in block.result["content"]
    assert (project / "inside-bang").exists() and not outside.exists()


async def test_ctrl_c_clears_then_exits(make_app, unhurried_double_press):
    app, _server = make_app([text_turn("ok")])
    async with started(app) as pilot:
        await type_text(pilot, "draft")
        await pilot.press("ctrl+c")
        assert app.prompt_input.text == ""
        await wait_for_text(pilot, "ctrl+c again to exit")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app._exit)
    assert app.return_code in (0, None)


async def test_ctrl_d_keeps_the_draft_and_exits_on_the_second_press(make_app, unhurried_double_press):
    app, _server = make_app([text_turn("ok")])
    async with started(app) as pilot:
        await type_text(pilot, "draft")
        await pilot.press("ctrl+d")
        await wait_for_text(pilot, "ctrl+d again to exit")
        assert app.is_running and app.prompt_input.text == "draft"
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: not app.is_running)


async def test_bad_settings_are_shown_once_and_dismissed(make_app, project: Path):
    from agentcli.ui.tui.screens.message_dialog import MessageDialog

    (project / ".agentcli").mkdir()
    (project / ".agentcli" / "settings.json").write_text("{ not json")
    app, _server = make_app([text_turn("still works")])
    async with started(app) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MessageDialog))
        await wait_for_text(pilot, "not valid JSON")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, MessageDialog))
        await send(pilot, "hi")
        await idle(pilot)
        await wait_for_text(pilot, "still works")


async def test_resume_picker_lists_and_resumes_a_session(make_app, make_engine, fake_api, project: Path):
    from agentcli.ui.tui.screens.resume_picker import ResumePicker
    from tests.conftest import collect

    earlier = fake_api({"turns": [text_turn("the earlier answer")]})
    engine = make_engine(earlier)
    await collect(engine, "an earlier question")
    engine.config.recorder.close()  # that run is over: the session is free to resume
    app, server = make_app([text_turn("continuing")], pick_resume=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ResumePicker))
        await wait_for_text(pilot, "an earlier question")
        await pilot.press("enter")
        await ready(pilot)
        await wait_for_text(pilot, "the earlier answer")
        await send(pilot, "and then")
        await idle(pilot)
    assert "an earlier question" in request_text(server)


async def test_a_prompt_on_the_command_line_opens_the_session_with_it(make_app):
    """``agentcli "PROMPT"`` (without -p) opens the interactive session and sends the prompt, as Claude Code does."""
    app, server = make_app([text_turn("answered at once")], first_prompt="start with this")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "answered at once" in screen_text(app))
        await idle(pilot)
        assert app.is_running
    assert "start with this" in request_text(server)


async def test_a_long_write_keeps_the_choices_on_screen(make_app, project: Path):
    """A Write of a 600-line file used to push the dialog's options off a 120×40 screen."""
    from agentcli.ui.tui.screens.permission import PermissionScreen

    content = "".join(f"line_{n} = {n}\n" for n in range(600))
    app, _server = make_app(
        [tool_turn("Write", {"file_path": "big.py", "content": content}, "toolu_w"), text_turn("done")]
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await wait_for(pilot, lambda: "3. No, and tell agentcli" in screen_text(app))
        text = screen_text(app)
        assert "1. Yes, allow once" in text and "line_0 = 0" in text and "line_599" not in text
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: "line_0 = 0" not in screen_text(app))
        await pilot.press("1")
        await idle(pilot)
    assert (project / "big.py").read_text() == content


async def test_a_one_line_edit_fits_a_small_terminal(make_app, project: Path):
    from agentcli.ui.tui.screens.permission import PermissionScreen

    edit = {"file_path": "src/app.py", "old_string": "return a + b", "new_string": "return b + a"}
    app, _server = make_app([tool_turn("Edit", edit, "toolu_e"), text_turn("swapped")])
    async with app.run_test(size=(60, 15)) as pilot:
        await ready(pilot)
        await send(pilot, "edit")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await wait_for(pilot, lambda: "3. No, and tell agentcli" in screen_text(app))
        text = screen_text(app)
        assert "1. Yes, allow once" in text and "-    return a + b" in text and "+    return b + a" in text


async def test_escape_in_the_permission_dialog_stops_the_turn(make_app, project: Path):
    from agentcli.ui.tui.screens.permission import PermissionScreen

    write = {"file_path": "notes.md", "content": "hello\n"}
    app, server = make_app([tool_turn("Write", write, "toolu_w"), text_turn("carrying on regardless")])
    async with started(app) as pilot:
        await send(pilot, "write")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press("escape")
        await idle(pilot)
        assert "Interrupted" in screen_text(app)
    assert len(server.requests) == 1 and not (project / "notes.md").exists()


async def test_the_conversation_scrolls_from_the_keyboard(make_app):
    long_answer = "\n\n".join(f"Paragraph {n} of a long answer." for n in range(80))
    app, _server = make_app([text_turn(long_answer, chunks=20)])
    async with started(app) as pilot:
        await send(pilot, "long")
        await idle(pilot)
        view = app.conversation
        await wait_for(pilot, lambda: view.max_scroll_y > 0 and view.scroll_y == view.max_scroll_y)
        await pilot.press("pageup")
        await wait_for(pilot, lambda: view.scroll_y < view.max_scroll_y)
        await pilot.press("ctrl+home")
        await wait_for(pilot, lambda: view.scroll_y == 0)
        await pilot.press("ctrl+end")
        await wait_for(pilot, lambda: view.scroll_y == view.max_scroll_y)
        assert app.focused is app.prompt_input
