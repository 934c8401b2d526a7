"""Prompts in the TUI: send or queue them, run each through the engine, ask about tool calls, interrupt."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from textual import on, work

from agentcli.ui.shell_command import run_shell_command, session_shell, with_shell_input
from agentcli.ui.tui.widgets.prompt_input import PromptInput
from agentcli.ui.turn import Submission

if TYPE_CHECKING:
    from agentcli.ui.tui.app import AgentApp

Message = dict[str, Any]


class TurnControl:
    """AgentApp's prompt jobs: the queue, the turn worker, permission questions, esc, ``!`` and ``/``."""

    @on(PromptInput.Submitted, "#prompt")
    def _submitted(self: AgentApp, event: PromptInput.Submitted) -> None:
        text = event.text.strip()
        self._hide_completions()
        if not text:
            return
        self.prompt_input.clear_prompt()
        self.prompt_history.add(text)
        if text.startswith("/") and not text.startswith("//"):
            self.run_command(text)
        elif text.startswith("!") and len(text) > 1:
            self.run_shell(text[1:].strip())
        else:
            self.send(text)

    def send(self: AgentApp, text: str) -> None:
        """Send now, or queue behind the running turn (or the session still starting)."""
        if self.busy or not self._engine_ready.is_set() or self._queue:
            widget = self.conversation.add_prompt(text, queued=True)
            self._queue.append((text, widget))
            self.status.state.queued = len(self._queue)
            self.status.show()
            return
        self.conversation.add_prompt(text)
        self._start(text)

    def _start(self: AgentApp, text: str) -> None:
        if self._shell_context:
            text = with_shell_input(self._shell_context, text)
            self._shell_context.clear()
        self.log_messages.add({"type": "user", "message": {"role": "user", "content": text}})
        transcript = self._transcript()
        if transcript is not None:
            transcript.handle(self.log_messages[-1])
        self.busy = True
        self.status.state.busy_since = time.monotonic()
        self.status.show()
        # The engine starts on the request now, ahead of the repaint the new prompt causes.
        self.run_turn(text, Submission(self.engine, text) if self.engine is not None else None)

    def _next_queued(self: AgentApp) -> None:
        if self.busy or not self._queue or not self._engine_ready.is_set():
            return
        text, widget = self._queue.pop(0)
        self.status.state.queued = len(self._queue)
        if widget is not None:
            widget.mark_sent()
        self._start(text)

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def run_turn(self: AgentApp, prompt: str, submission: Submission | None = None) -> None:
        """One prompt through the engine (already submitted, or submitted here); messages are shown as they come."""
        await self._engine_ready.wait()
        engine = self.engine
        if engine is None:
            self.conversation.add_notice(self.engine_error or "The session is not available.", "error")
            self._turn_done()
            return
        submission = self._submission = submission or Submission(engine, prompt)
        try:
            await submission.read(self.show, self._unexpected)
        finally:
            self._submission = None
            await submission.stop()
            self._turn_done()

    def _unexpected(self: AgentApp, error: BaseException) -> None:
        self.conversation.add_notice(f"Unexpected error: {type(error).__name__}: {error}", "error")

    def _turn_done(self: AgentApp) -> None:
        self.busy = False
        self.status.state.busy_since = None
        self.status.state.retry_at = None
        self.status.show()
        self.call_later(self._next_queued)

    async def ask_permission(self: AgentApp, request: Any) -> Any:
        """The engine's question about a tool call, answered in a dialog."""
        from agentcli.ui.tui.screens.permission import PermissionScreen

        tool = self.conversation.tool(request.tool_use_id)
        if tool is not None:
            tool.state = "waiting"
            tool.refresh(layout=True)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        screen = PermissionScreen(request, self.cwd)
        self._permission_screen = screen

        def answered(answer: Any) -> None:
            if not future.done():
                future.set_result(answer)

        self.push_screen(screen, callback=answered)
        if self.engine is not None:
            # Notification hooks (a desktop notice, a sound) run beside the dialog, never in front of it.
            self.run_worker(
                self.engine.notify(f"agentcli needs your permission to use {request.tool_name}", "Permission needed"),
                group="notify",
                exit_on_error=False,
            )
        try:
            answer = await future
        except asyncio.CancelledError:
            if screen.is_attached and screen in self.screen_stack:
                screen.dismiss(None)
            raise
        finally:
            self._permission_screen = None
        if tool is not None:
            tool.state = "running"
            tool.refresh(layout=True)
        if screen.stop_turn and self.engine is not None:
            # Esc in the dialog stops the whole turn, not only this call; the denial is answered first.
            self.engine.interrupt()
        return answer

    def action_interrupt(self: AgentApp) -> None:
        """Esc: stop the running turn (or shell command); otherwise close the completion menu."""
        if self._completion_kind:
            self._hide_completions()
            return
        stopped = False
        if self.busy and self.engine is not None:
            self.engine.interrupt()
            stopped = True
        for worker in self.workers:
            if worker.group == "shell" and worker.is_running:
                worker.cancel()
                stopped = True
        if not stopped and self._queue:
            self._drop_queue()
        elif not stopped and not self.prompt_input.text:
            self._esc_on_empty_prompt()

    def _esc_on_empty_prompt(self: AgentApp) -> None:
        """Esc twice with nothing to stop and nothing typed opens /rewind (as in Claude Code)."""
        from agentcli.ui.tui.app import DOUBLE_PRESS_S

        now = time.monotonic()
        if now - self._last_esc < DOUBLE_PRESS_S:
            self._last_esc = 0.0
            self.run_worker(self.rewind(), group="command", exit_on_error=False)
            return
        self._last_esc = now

    def take_queued(self: AgentApp) -> str:
        """The queued prompts, taken out of the queue to be edited and sent again (one per line)."""
        texts = [text for text, _widget in self._queue]
        self._drop_queue()
        return "\n".join(texts)

    def _drop_queue(self: AgentApp) -> None:
        for _text, widget in self._queue:
            if widget is not None:
                widget.remove()
        self._queue.clear()
        self.status.state.queued = 0
        self.status.show()

    def run_command(self: AgentApp, text: str) -> None:
        """A slash command from the shared registry (custom commands and MCP prompts included)."""
        self.run_worker(self._command(text), group="command", exit_on_error=False)

    async def _command(self: AgentApp, text: str) -> None:
        """Run a command once the session is up (typed at start-up, it waits: custom commands come with the
        session); /exit never waits."""
        from agentcli.commands import parse_command, session_registry
        from agentcli.ui.tui.commands import TuiFace

        parsed = parse_command(text)
        if parsed is None or parsed[0] not in ("exit", "quit"):
            await self._engine_ready.wait()
        await session_registry(self.engine).run(TuiFace(self), text)
        model = getattr(getattr(self.engine, "config", None), "model", None)
        if model and self.status.is_mounted:  # /model NAME changes what the status line shows
            self.status.state.model = model
            self.status.show()

    def run_shell(self: AgentApp, command: str) -> None:
        self.conversation.add_prompt(command, shell=True)
        self._shell_worker(command)

    @work(group="shell", exit_on_error=False)
    async def _shell_worker(self: AgentApp, command: str) -> None:
        await self._engine_ready.wait()  # the session's sandbox exists only once the session does
        sandbox, env = session_shell(self.engine)
        context = await run_shell_command(command, self.cwd, self.conversation.reader, sandbox, env)
        self._shell_context.append(context)
