"""@file, @folder and pasted image paths reach the model with the prompt under the Read permission (real engine
and tools, fake Messages API over HTTP); the --plain face's test is in test_repl.py."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.api.cache import without_cache_control
from agentcli.context.user_context import is_user_context_block
from tests.ui.conftest import SIZE, idle, ready, text_turn, type_text

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 40


def last_user_content(server) -> list:
    """The blocks of the last prompt sent, without the session's user context and the cache marker."""
    content = server.requests[-1].body["messages"][-1]["content"]
    assert isinstance(content, list), content
    return [without_cache_control(block) for block in content if not is_user_context_block(block)]


async def test_file_folder_and_a_denied_file_in_the_tui(make_app, project: Path):
    """The file's numbered lines and the folder's listing are attached; a file a deny rule covers is not, and the
    model is told why."""
    (project / "secret.env").write_text("TOKEN=abc\n")
    app, server = make_app([text_turn("seen")], disallowed_tools=["Read(secret.env)"])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_text(pilot, "explain @src/app.py in @src and @secret.env")
        await pilot.press("escape")  # close the path completion menu
        await pilot.press("enter")
        await idle(pilot)
    content = last_user_content(server)
    assert content[0] == {"type": "text", "text": "explain @src/app.py in @src and @secret.env"}
    sent = json.dumps(content)
    assert "1\\tdef add(a, b):" in sent  # Read's numbered lines
    assert "Its contents:\\napp.py" in sent  # the folder listing
    assert "@secret.env was not attached" in sent and "TOKEN=abc" not in sent
