"""Snapshot tests: what the screen looks like. Each docstring says what a person should see.

Update after an intended change with ``pytest tests/ui/test_snapshots.py --snapshot-update`` and review the SVGs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentcli.tools.permissions import PermissionRequest
from agentcli.ui.tui.app import AgentApp
from agentcli.ui.tui.themes import available_themes
from tests.ui.conftest import painted, wait_for, wait_for_text
from tests.ui.scripted import conversation

SIZE = (100, 48)


def scripted_app(theme: str = "dark") -> AgentApp:
    themes, _ = available_themes()
    return AgentApp(None, cwd=Path("/project"), theme=theme, themes=themes)


async def play(pilot: Any) -> None:
    app = pilot.app
    app.prompt_input.cursor_blink = False  # a blinking cursor would make the picture depend on the moment
    for message in conversation():
        app.show(message)
    await settled(pilot)


async def settled(pilot: Any) -> None:
    """Wait until everything given to the screen is drawn (conditions, not a time: the machine may be busy)."""
    await wait_for(pilot, lambda: painted(pilot.app))
    await pilot.pause()


def test_main_screen(snap_compare):
    """The conversation after one finished turn: the prompt "> Add a test for add()" on a shaded line; the
    streamed answer with a "What I found" heading, two bullets and a highlighted python block; green-dot
    Read(src/app.py) "Read 2 lines"; red-dot Bash(pytest -q) with the red "no tests ran" line; Edit with a
    green/red diff; the final answer; the rounded prompt box with its placeholder; and the status line with
    model, "default (shift+tab)", "ctx 6%" and "$0.0123". No spinner anywhere."""
    assert snap_compare(scripted_app(), terminal_size=SIZE, run_before=play)


def test_transcript_view(snap_compare):
    """ctrl+o: the "Detailed transcript" title bar, the session line, each tool call with its full JSON input
    and full output, and the end-of-turn line (time, requests, tokens, cost); help bar at the bottom."""

    async def run_before(pilot: Any) -> None:
        from agentcli.ui.tui.screens.transcript import TranscriptScreen

        await play(pilot)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, TranscriptScreen))
        await settled(pilot)

    assert snap_compare(scripted_app(), terminal_size=SIZE, run_before=run_before)


def test_permission_dialog(snap_compare):
    """A centred dialog with an amber border over the dimmed conversation: "Allow Bash(rm -rf build)?", the
    reason, the JSON input, and three options (allow once / allow "Bash(rm:*)" for this session / no, with the
    first highlighted."""

    async def run_before(pilot: Any) -> None:
        from agentcli.ui.tui.screens.permission import PermissionScreen

        await play(pilot)
        request = PermissionRequest(
            "Bash", {"command": "rm -rf build"}, "toolu_9", "the command `rm -rf build` needs approval", ("Bash(rm:*)",)
        )
        await pilot.app.push_screen(PermissionScreen(request, Path("/project")))
        await settled(pilot)

    assert snap_compare(scripted_app(), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("theme", ["dark", "light", "high-contrast"])
def test_each_theme(snap_compare, theme):
    """The same finished conversation in each built-in theme: dark (warm orange on near-black), light (dark
    text on cream) and high-contrast (white on black, yellow accents). Text must be readable in all three."""
    assert snap_compare(scripted_app(theme), terminal_size=SIZE, run_before=play)


EDIT = {
    "file_path": "src/app.py",
    "old_string": "def add(a, b):\n    return a + b\n",
    "new_string": 'def add(a: int, b: int) -> int:\n    """The sum."""\n    return a + b\n',
}


def _edit_dialog(request_input: dict[str, Any]) -> Any:
    async def run_before(pilot: Any) -> None:
        from agentcli.ui.tui.screens.permission import PermissionScreen

        await play(pilot)
        request = PermissionRequest(
            "Edit", request_input, "toolu_e", "editing src/app.py needs approval", ("Edit(src/**)",)
        )
        pilot.app.push_screen(PermissionScreen(request, Path("/project")))
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, PermissionScreen))
        await settled(pilot)

    return run_before


def test_permission_dialog_with_a_diff(snap_compare):
    """At 120×40: "Allow Edit(src/app.py)?", the reason, then a diff on a shaded panel: "@@ -1,2 +1,3 @@" in the
    accent colour, the old "def add(a, b):" line in red with "-", the two new lines in green with "+", the
    unchanged "return a + b" plain; below it the three choices, the first highlighted."""
    assert snap_compare(scripted_app(), terminal_size=(120, 40), run_before=_edit_dialog(EDIT))


def test_permission_dialog_with_a_diff_in_a_small_terminal(snap_compare):
    """At 60×15: the same dialog without padding; the title and reason cut with "…" on one line each, as much of
    the diff as fits (it scrolls), and all three choices fully visible at the bottom of the box."""
    assert snap_compare(scripted_app(), terminal_size=(60, 15), run_before=_edit_dialog(EDIT))


def test_end_of_turn_line(snap_compare):
    """A short terminal after the turn: the last answer "Added a test for add…", then the dim end-of-turn line
    "✻ 4.2 s · 4 requests · ↑ … ↓ … tokens · $0.0123 (session $0.0123)", the prompt box and the status line."""
    assert snap_compare(scripted_app(), terminal_size=(100, 12), run_before=play)


def test_context_view(snap_compare):
    """/context: the line "Context: N of 200,000 tokens (P%) · model" and under it a bar of filled and empty blocks
    with the percentage, then rows for system prompt, tool list, messages (with the message count) and free space,
    each with its share of the window, the auto-compact threshold, and the hint that /compact frees space."""
    from types import SimpleNamespace

    from agentcli.context.compact import Compactor

    async def run_before(pilot: Any) -> None:
        app = pilot.app
        registry = SimpleNamespace(schemas=lambda: [{"name": "Read", "description": "Read a file. " * 400}])
        app.engine = SimpleNamespace(
            messages=[{"role": "user", "content": "x" * 40_000}, {"role": "assistant", "content": "ok"}],
            conversation=SimpleNamespace(context_tokens=lambda overhead: overhead + 50_000),
            config=SimpleNamespace(
                system_prompt="You are agentcli. " * 500,
                registry=registry,
                commands=None,
                model="claude-sonnet-5-5",
                max_tokens=32_000,
            ),
            compactor=Compactor(SimpleNamespace(), SimpleNamespace(), SimpleNamespace()),  # type: ignore[arg-type]
        )
        app.run_command("/context")
        await wait_for_text(pilot, "Context: ", "/compact")
        await settled(pilot)

    assert snap_compare(scripted_app(), terminal_size=(100, 24), run_before=run_before)
