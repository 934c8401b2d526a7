"""Driving the inline REPL (``--plain``) in-process: keys go in through a prompt-toolkit pipe, output comes out of
a captured rich console, and the real engine and SDK talk to the fake Messages API."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from agentcli.testing import FakeAnthropicServer
from agentcli.ui.history import PromptHistory
from agentcli.ui.repl.app import Repl
from agentcli.ui.repl.render import make_console
from agentcli.ui.session_setup import SessionSetup
from tests.waiting import DEADLINE_S, until

ENTER = "\r"
ESCAPE = "\x1b"
CTRL_C = "\x03"
CTRL_D = "\x04"


@dataclass
class Driver:
    """A running REPL: type into it, read what it printed, wait for it."""

    repl: Repl
    pipe: PipeInput
    server: FakeAnthropicServer
    task: asyncio.Task[int]

    @property
    def output(self) -> str:
        file = self.repl.console.file
        assert isinstance(file, io.StringIO)
        return file.getvalue()

    async def until(self, condition: Callable[[], Any], timeout: float = DEADLINE_S) -> None:
        """The shared wait, with what the REPL printed when it fails (the REPL's own error, if it crashed)."""
        try:
            await until(condition, str(condition), task=self.task, timeout=timeout)
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the REPL printed:\n{self.output}") from None

    async def wait_for(self, needle: str, timeout: float = DEADLINE_S) -> None:
        await self.until(lambda: needle in self.output, timeout)

    async def idle(self) -> None:
        """Wait until the prompt is open again (no turn running)."""
        await self.until(lambda: self.repl.prompting and not self.repl.busy)

    def type(self, text: str) -> None:
        self.pipe.send_text(text)

    async def send(self, prompt: str) -> None:
        """Type a prompt, send it, and wait until its turn is over."""
        await self.idle()
        before = self.repl.view.turns
        self.type(prompt + ENTER)
        await self.until(lambda: self.repl.view.turns > before)
        await self.idle()

    async def leave(self) -> int:
        await self.idle()
        self.type(CTRL_D)
        return await asyncio.wait_for(self.task, DEADLINE_S)


def request_text(server: FakeAnthropicServer, index: int = -1) -> str:
    return json.dumps(server.requests[index].body)


@pytest.fixture
async def start_repl(
    project: Path, fake_api: Callable[..., FakeAnthropicServer], tmp_path: Path
) -> AsyncIterator[Callable[..., Any]]:
    """Start a REPL on the real engine against a fake API that plays ``turns``; returns a :class:`Driver`."""
    from agentcli.api.client import Credentials

    drivers: list[Driver] = []
    setups: list[SessionSetup] = []
    with contextlib.ExitStack() as stack:

        def start(
            turns: list[dict[str, Any]],
            *,
            pick_resume: bool = False,
            terminal: bool = False,
            first_prompt: str | None = None,
            **values: Any,
        ) -> Driver:
            server = fake_api({"turns": turns, "on_exhausted": "echo"})
            pipe = stack.enter_context(create_pipe_input())
            console = make_console(io.StringIO(), width=100, height=30, terminal=terminal)
            setup = SessionSetup(
                project,
                values,
                pick_resume=pick_resume,
                credentials=Credentials(api_key="test-key", base_url=server.base_url),
            )
            setups.append(setup)
            repl = Repl(
                setup,
                console=console,
                input=pipe,
                output=DummyOutput(),
                history=PromptHistory(tmp_path / "history.jsonl", project),
                first_prompt=first_prompt,
            )
            driver = Driver(repl, pipe, server, asyncio.create_task(repl.run()))
            drivers.append(driver)
            return driver

        yield start
        for driver in drivers:
            if not driver.task.done():
                driver.type(CTRL_D)
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(asyncio.shield(driver.task), DEADLINE_S)
            if not driver.task.done():
                driver.task.cancel()
                with contextlib.suppress(BaseException):
                    await driver.task
        for setup in setups:
            setup.close()
