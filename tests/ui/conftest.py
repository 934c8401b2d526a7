"""Fixtures for the full-screen interface: an app wired to the fake Messages API, and ways to wait on it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from agentcli.testing import FakeAnthropicServer
from tests.ui.repl_driver import start_repl  # noqa: F401  (the --plain tests' fixture)
from tests.waiting import DEADLINE_S

SIZE = (100, 36)


def text_turn(text: str, *, chunks: int = 8, delay_ms: float = 0) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text, "chunks": chunks}], "delay_ms": delay_ms}


def tool_turn(name: str, tool_input: dict[str, Any], tool_id: str, text: str = "On it.") -> dict[str, Any]:
    return {
        "content": [
            {"type": "text", "text": text, "chunks": 2},
            {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input, "chunks": 3},
        ]
    }


@pytest.fixture
def make_app(project: Path, fake_api: Callable[..., FakeAnthropicServer], tmp_path: Path) -> Callable[..., Any]:
    """An AgentApp on the real engine, talking to a fake API that plays ``turns``; returns (app, server)."""
    from agentcli.api.client import Credentials
    from agentcli.ui.history import PromptHistory
    from agentcli.ui.session_setup import SessionSetup
    from agentcli.ui.tui.app import AgentApp
    from agentcli.ui.tui.themes import available_themes

    def make(
        turns: list[dict[str, Any]],
        *,
        history: PromptHistory | None = None,
        theme: str = "dark",
        first_prompt: str | None = None,
        **values: Any,
    ) -> tuple[Any, FakeAnthropicServer]:
        server = fake_api({"turns": turns, "on_exhausted": "echo"})
        setup = SessionSetup(
            project,
            values,
            credentials=Credentials(api_key="test-key", base_url=server.base_url),
            pick_resume=values.pop("pick_resume", False),
        )
        themes, _ = available_themes()
        app = AgentApp(
            setup,
            cwd=project,
            theme=theme,
            themes=themes,
            first_prompt=first_prompt,
            history=history or PromptHistory(tmp_path / "history.jsonl", project),
        )
        return app, server

    return make


@pytest.fixture
def unhurried_double_press(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second ctrl+c, ctrl+d or Esc counts as the second press of a pair however long a busy machine takes
    between the two (the window is 1.5 s otherwise)."""
    from agentcli.ui.tui import app

    monkeypatch.setattr(app, "DOUBLE_PRESS_S", DEADLINE_S)


async def wait_for(pilot: Any, condition: Callable[[], Any], timeout: float = DEADLINE_S) -> None:
    """Let the app run until ``condition()`` holds (a condition, never a fixed time: the machine may be busy)."""
    from textual.css.query import NoMatches  # noqa: TID251

    def holds() -> bool:
        try:
            return bool(condition())
        except NoMatches:  # the widget it looks at is not mounted yet
            return False

    deadline = time.monotonic() + timeout
    while not holds():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {condition}")
        await pilot.pause(0.02)


async def wait_for_text(pilot: Any, *needles: str, timeout: float = DEADLINE_S) -> str:
    """The screen's text once every one of ``needles`` is painted on it."""
    app = pilot.app
    await wait_for(pilot, lambda: all(needle in screen_text(app) for needle in needles), timeout)
    return screen_text(app)


def painted(app: Any) -> bool:
    """Nothing waits to be drawn: every Markdown view on the screen has rendered all the text it was given, every
    block at its real height (a block not yet rendered holds an estimated one, and scrolling would land elsewhere)."""
    from agentcli.ui.tui.widgets.markdown_view import MarkdownView

    return all(view.fully_rendered for view in app.screen.query(MarkdownView))


async def ready(pilot: Any) -> None:
    """Wait until the session has started (engine built in the background)."""
    await wait_for(pilot, lambda: pilot.app._engine_ready.is_set())


async def idle(pilot: Any) -> None:
    """Wait until no turn is running and the queue is empty."""
    app = pilot.app
    await wait_for(pilot, lambda: not app.busy and not app._queue)
    await app.workers.wait_for_complete()
    await pilot.pause()


@asynccontextmanager
async def started(app: Any) -> AsyncIterator[Any]:
    """A pilot on ``app`` at the test size, once its session has started: how nearly every pilot test begins."""
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        yield pilot


def screen_text(app: Any) -> str:
    """The plain text of everything currently on screen."""
    return "\n".join(strip.text.rstrip() for strip in app.screen._compositor.render_strips())


async def type_text(pilot: Any, text: str) -> None:
    for char in text:
        await pilot.press("space" if char == " " else char)


async def send(pilot: Any, text: str) -> None:
    """Type ``text`` into the prompt and press Enter."""
    await type_text(pilot, text)
    await pilot.press("enter")


def last_user_text(server: FakeAnthropicServer) -> str:
    body = server.requests[-1].body if hasattr(server.requests[-1], "body") else server.requests[-1]
    return str(body)


async def settle() -> None:
    await asyncio.sleep(0)
