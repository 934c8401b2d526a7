"""/rewind and Esc twice in the full-screen interface, on the real engine and tools against the fake API: the
conversation, the files, or both go back to before a chosen prompt."""

from __future__ import annotations

from pathlib import Path

from tests.ui.conftest import SIZE, idle, ready, screen_text, text_turn, tool_turn, type_text, wait_for


async def send(pilot, text: str) -> None:
    await type_text(pilot, text)
    await pilot.press("enter")


def two_prompts_of_edits(notes: Path) -> list[dict]:
    return [
        tool_turn("Write", {"file_path": str(notes), "content": "v1\n"}, "toolu_w"),
        text_turn("wrote it"),
        tool_turn("Edit", {"file_path": str(notes), "old_string": "v1", "new_string": "v2"}, "toolu_e"),
        text_turn("edited it"),
        text_turn("fresh answer"),
    ]


async def send_both_prompts(pilot) -> None:
    """The two prompts of :func:`two_prompts_of_edits`, each answered before the next."""
    await ready(pilot)
    for prompt in ("make notes", "change notes"):
        await send(pilot, prompt)
        await idle(pilot)


async def test_rewind_restores_the_conversation_and_the_files(make_app, project: Path):
    """Picking the second prompt puts the file back as the first prompt left it, continues in a conversation
    without the second prompt, and returns that prompt to the input for editing."""
    notes = project / "notes.txt"
    app, server = make_app(two_prompts_of_edits(notes), permission_mode="acceptEdits")
    async with app.run_test(size=SIZE) as pilot:
        await send_both_prompts(pilot)
        assert notes.read_text() == "v2\n"
        first_session = app.session_id
        await send(pilot, "/rewind")
        await wait_for(pilot, lambda: "Rewind to before which prompt?" in screen_text(app))
        assert "2. change notes  (1 file changed)" in screen_text(app)
        await pilot.press("enter")  # the latest prompt is highlighted first
        await wait_for(pilot, lambda: "What should go back?" in screen_text(app))
        await pilot.press("enter")  # the conversation and the files
        await wait_for(pilot, lambda: app.session_id != first_session and app._engine_ready.is_set())
        await wait_for(pilot, lambda: app.prompt_input.text == "change notes")
        assert notes.read_text() == "v1\n"
        await wait_for(pilot, lambda: "make notes" in screen_text(app))  # the kept history, drawn again
        app.prompt_input.clear_prompt()
        await send(pilot, "something else")
        await idle(pilot)
    sent = server.requests[-1].body["messages"]
    texts = str(sent)
    assert "make notes" in texts and "something else" in texts and "change notes" not in texts


async def test_esc_twice_rewinds_the_files_only(make_app, project: Path, unhurried_double_press):
    """Esc twice on an empty prompt opens the same menu; "files only" removes the file the first prompt created and
    leaves the conversation (and the session) as it was."""
    notes = project / "notes.txt"
    app, _server = make_app(two_prompts_of_edits(notes), permission_mode="acceptEdits")
    async with app.run_test(size=SIZE) as pilot:
        await send_both_prompts(pilot)
        session = app.session_id
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: "Rewind to before which prompt?" in screen_text(app))
        await pilot.press("down", "enter")  # the first prompt
        await wait_for(pilot, lambda: "What should go back?" in screen_text(app))
        await pilot.press("down", "down", "enter")  # files only
        await wait_for(pilot, lambda: not notes.exists())
        await wait_for(pilot, lambda: "Restored 1 file" in screen_text(app))
        assert app.session_id == session
        await wait_for(pilot, lambda: "change notes" in screen_text(app))


async def test_rewind_refuses_to_restore_through_a_link_planted_since(make_app, project: Path):
    """After the edits, the tracked file is replaced by a symlink to ``~/.bashrc`` (what a sandboxed command can
    do): restoring it is refused and named, and the start-up file keeps its text."""
    notes = project / "notes.txt"
    bashrc = Path.home() / ".bashrc"
    bashrc.write_text("export SAFE=1\n")
    app, _server = make_app(two_prompts_of_edits(notes), permission_mode="acceptEdits")
    async with app.run_test(size=SIZE) as pilot:
        await send_both_prompts(pilot)
        notes.unlink()
        notes.symlink_to(bashrc)
        await send(pilot, "/rewind")
        await wait_for(pilot, lambda: "Rewind to before which prompt?" in screen_text(app))
        await pilot.press("enter")  # the latest prompt
        await wait_for(pilot, lambda: "What should go back?" in screen_text(app))
        await pilot.press("down", "down", "enter")  # files only
        await wait_for(pilot, lambda: "Not everything could be restored" in screen_text(app))
        said = " ".join(screen_text(app).split())  # the notice wraps: compare its words
        assert "notes.txt is a symbolic link to" in said and "remove the link, then rewind again" in said
    assert bashrc.read_text() == "export SAFE=1\n" and notes.is_symlink()
