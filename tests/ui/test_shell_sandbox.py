"""``!cmd`` in both interactive faces runs in the session's sandbox when the ``sandbox`` settings turn it on (the
default) and unconfined when they turn it off; it cannot plant agentcli's settings either."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcli.ui.tui.widgets.tool_call import ToolCallBlock
from agentcli.ui.tui.widgets.user_prompt import UserPrompt
from tests.ui.conftest import SIZE, send, started, wait_for
from tests.ui.repl_driver import ENTER
from tests.waiting import DEADLINE_S

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
    plant = "mkdir .claude; echo '{}' > .claude/settings.json"
    repl.type(f"!touch {outside}; {plant}; echo sandbox=${{AGENTCLI_SANDBOX:+inside}}" + ENTER)
    await repl.wait_for("sandbox=inside")
    await repl.idle()
    assert "Read-only file system" in " ".join(repl.output.split())  # as printed, wrapped at the console's width
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


async def test_a_bang_typed_while_the_session_starts_waits_for_its_sandbox(
    make_app, project: Path, outside, monkeypatch: pytest.MonkeyPatch
):
    """The full-screen face takes input before the session is built; a ``!`` command sent then runs once the
    session (and its sandbox) is there, not unconfined meanwhile."""
    from agentcli.ui.session_setup import SessionSetup

    release = threading.Event()
    build = SessionSetup.build

    def held_build(self: SessionSetup) -> object:
        assert release.wait(DEADLINE_S), "the test never let the session start"
        return build(self)

    monkeypatch.setattr(SessionSetup, "build", held_build)
    app, _server = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, f"!touch {outside}; echo sandbox=${{AGENTCLI_SANDBOX:+inside}}")
        await wait_for(pilot, lambda: app.conversation.query(UserPrompt))  # sent, while the session starts
        assert not app._engine_ready.is_set()
        release.set()
        await wait_for(pilot, lambda: app.conversation.query(ToolCallBlock).last().result)
        assert "sandbox=inside" in app.conversation.query(ToolCallBlock).last().result["content"]
    assert not outside.exists()
