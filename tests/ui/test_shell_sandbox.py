"""``!cmd`` in both interactive faces runs in the session's sandbox when the ``sandbox`` settings turn it on (the
default) and unconfined when they turn it off; what it creates in a protected place is removed, and said."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcli.ui.tui.widgets.tool_call import ToolCallBlock
from tests.ui.conftest import send, started, wait_for
from tests.ui.repl_driver import ENTER

SANDBOX_OFF = json.dumps({"sandbox": {"enabled": False}})


@pytest.fixture
def outside() -> Iterator[Path]:
    """Outside the project, and writable by the user (so an unconfined command can write there)."""
    place = Path("/var/tmp") / f"agentcli-bang-{uuid.uuid4().hex}"
    yield place
    place.unlink(missing_ok=True)


async def test_the_repls_bang_runs_in_the_sandbox_and_cannot_plant_settings(start_repl, project: Path, outside):
    repl = start_repl([])
    await repl.idle()
    repl.type(
        f"!touch {outside}; mkdir .claude && echo '{{}}' > .claude/settings.json; echo sandbox=$AGENTCLI_SANDBOX"
        + ENTER
    )
    await repl.wait_for("it was removed")
    await repl.idle()
    printed = " ".join(repl.output.split())  # as printed, wrapped at the console's width
    assert "sandbox=1" in printed and "Read-only file system" in printed
    assert "The sandbox does not allow creating .claude; it was removed." in printed
    assert not outside.exists() and not (project / ".claude").exists()


async def test_the_repls_bang_is_unconfined_when_the_settings_turn_the_sandbox_off(start_repl, outside):
    repl = start_repl([], settings_flag=SANDBOX_OFF)
    await repl.idle()
    repl.type(f"!touch {outside}; echo sandbox=${{AGENTCLI_SANDBOX:-off}}" + ENTER)
    await repl.wait_for("sandbox=off")
    await repl.idle()
    assert outside.exists()


async def test_the_full_screen_bang_is_unconfined_when_the_settings_turn_the_sandbox_off(make_app, outside):
    app, _server = make_app([], settings_flag=SANDBOX_OFF)
    async with started(app) as pilot:
        await send(pilot, f"!touch {outside}; echo sandbox=${{AGENTCLI_SANDBOX:-off}}")
        await wait_for(
            pilot,
            lambda: app.conversation.query(ToolCallBlock) and app.conversation.query(ToolCallBlock).last().result,
        )
        assert "sandbox=off" in app.conversation.query(ToolCallBlock).last().result["content"]
    assert outside.exists()
