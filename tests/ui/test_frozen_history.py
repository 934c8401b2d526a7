"""Finished history is frozen into lines (one widget for many items) and must look exactly as the live widgets did:
scrolled, after a resize, after a theme change, and in the ctrl+o transcript."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.strip import Strip  # noqa: TID251

from agentcli.ui.tui.app import AgentApp
from agentcli.ui.tui.themes import available_themes
from agentcli.ui.tui.widgets import conversation as conversation_module
from agentcli.ui.tui.widgets.conversation import Conversation, Segment
from agentcli.ui.tui.widgets.frozen import FrozenBlock, FrozenLines
from tests.ui.conftest import idle, painted, started, text_turn, wait_for, wait_for_text
from tests.ui.scripted import conversation as scripted


def rounds(count: int) -> list[dict[str, Any]]:
    """The scripted turn ``count`` times over, with distinct ids (6 items a round, plus a notice)."""
    messages = []
    for n in range(count):
        for message in scripted():
            if message.get("subtype") == "init":
                continue
            text = json.dumps(message).replace("msg_", f"m{n}_").replace("toolu_", f"t{n}_")
            messages.append(json.loads(text.replace("Add a test for add()", f"Add test {n} for add()")))
    return messages


def styled_screen(app: AgentApp) -> list[list[tuple[str, str]]]:
    """Every cell's character and style, above the prompt box (the cursor blinks there)."""
    strips = app.screen._compositor.render_strips()
    return [[(char, str(segment.style)) for segment in strip for char in segment.text] for strip in strips[:-5]]


async def settle(pilot: Any) -> None:
    """Wait until no stale frozen part is on screen and nothing waits to be frozen."""
    conversation: Conversation = pilot.app.conversation

    def stale_visible() -> bool:
        view = conversation.region
        for block in conversation.query(FrozenBlock):
            for start, part in zip(block.starts, block.parts, strict=True):
                top = block.region.y + start
                if part.stale and top < view.bottom and top + len(part.lines) > view.y:
                    return True
        return False

    await pilot.pause()
    await wait_for(pilot, lambda: not stale_visible() and painted(pilot.app))
    await pilot.pause()


async def screens(pilot: Any) -> list[Any]:
    app = pilot.app
    shots = []
    for y in (0, 45, 10_000):
        app.conversation.scroll_to(y=y, animate=False)
        await settle(pilot)
        shots.append(styled_screen(app))
    return shots


async def session_views(monkeypatch: pytest.MonkeyPatch, *, freeze: bool) -> tuple[list[Any], int]:
    if not freeze:

        async def never(self: Conversation) -> None:
            return None

        monkeypatch.setattr(Conversation, "_freeze_finished", never)
    themes, _ = available_themes()
    app = AgentApp(None, cwd=Path("/project"), theme="dark", themes=themes)
    shots: list[Any] = []
    async with app.run_test(size=(100, 40)) as pilot:
        for message in rounds(5):
            app.show(message)
        app.conversation.add_notice("a warning with detail", "warning", detail="first\nsecond")
        if freeze:
            await wait_for(pilot, lambda: app.conversation.unfrozen_history == 0)
        await settle(pilot)
        frozen = app.conversation.frozen_items
        shots += await screens(pilot)
        await pilot.resize_terminal(72, 40)
        shots += await screens(pilot)
        app.theme = "light"
        shots += await screens(pilot)
    monkeypatch.undo()
    return shots, frozen


async def test_frozen_history_looks_exactly_like_the_live_widgets(monkeypatch):
    frozen_shots, frozen_items = await session_views(monkeypatch, freeze=True)
    live_shots, live_frozen = await session_views(monkeypatch, freeze=False)
    assert frozen_items >= 24 and live_frozen == 0
    assert len(frozen_shots) == len(live_shots) == 9
    for index, (frozen, live) in enumerate(zip(frozen_shots, live_shots, strict=True)):
        rows = [row for row, (a, b) in enumerate(zip(frozen, live, strict=True)) if a != b]
        assert not rows, (
            f"screen {index} differs in rows {rows}",
            ["".join(char for char, _ in frozen[row]) for row in rows[:3]],
            ["".join(char for char, _ in live[row]) for row in rows[:3]],
        )


async def test_history_becomes_one_widget_and_the_transcript_keeps_everything():
    themes, _ = available_themes()
    app = AgentApp(None, cwd=Path("/project"), theme="dark", themes=themes)
    async with app.run_test(size=(100, 40)) as pilot:
        for message in rounds(8):
            app.show(message)
        await wait_for(pilot, lambda: app.conversation.unfrozen_history == 0)
        await wait_for(pilot, lambda: len(app.conversation.children) == 2)  # the frozen segments are removed
        children = list(app.conversation.children)
        assert [type(child) for child in children] == [FrozenBlock, Segment]
        assert children[0].items == app.conversation.frozen_items >= 36
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: hasattr(app.screen, "conversation"))
        transcript = app.screen.conversation
        transcript.scroll_home(animate=False)
        await settle(pilot)
        await wait_for_text(pilot, "Add test 0 for add()")
        transcript.scroll_end(animate=False)
        await settle(pilot)
        await wait_for_text(pilot, "4 requests")
        await wait_for(pilot, lambda: transcript.unfrozen_history == 0)
        assert transcript.frozen_items >= 36


async def test_a_long_session_freezes_while_turns_keep_coming(make_app, monkeypatch):
    monkeypatch.setattr(conversation_module, "SEGMENT_SIZE", 2)
    app, server = make_app([text_turn(f"answer {n}") for n in range(4)])
    async with started(app) as pilot:
        for n in range(4):
            app.prompt_input.set_prompt(f"question {n}")
            await pilot.press("enter")
            await idle(pilot)
        await wait_for(pilot, lambda: app.conversation.unfrozen_history == 0)
        assert app.conversation.frozen_items >= 6
        app.conversation.scroll_home(animate=False)
        await settle(pilot)
        await wait_for_text(pilot, "question 0", "answer 0")
    assert len(server.requests) == 4


def test_frozen_lines_keep_text_and_styles():
    from rich.segment import Segment as RichSegment  # noqa: TID251
    from rich.style import Style  # noqa: TID251

    bold, red = Style(bold=True), Style(color="red")
    strips = [Strip([RichSegment("ab", bold), RichSegment("cd", red), RichSegment("ef", bold)]), Strip([])]
    lines = FrozenLines(strips)
    assert len(lines) == 2
    assert list(lines.strip(0)) == list(strips[0])
    assert lines.strip(1).text == ""
