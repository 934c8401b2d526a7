"""Starting, switching and ending the TUI's session (the engine is built after the first frame)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
from typing import TYPE_CHECKING, Any

from agentcli.ui.reader import history_messages
from agentcli.ui.session_setup import SessionSetup

if TYPE_CHECKING:
    from agentcli.ui.tui.app import AgentApp

Message = dict[str, Any]
CLOSE_TIMEOUT_S = 5
"""How long exiting waits for SessionEnd hooks and the connections to close."""


def resume_gc() -> None:
    """Turn cyclic garbage collection back on after start-up, leaving the objects made so far out of it."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


class SessionControl:
    """AgentApp's session jobs: build the engine, resume or switch sessions, close at exit."""

    async def _prepare(self: AgentApp) -> None:
        setup = self.setup
        assert setup is not None
        from agentcli.ui.session_setup import StartupError

        try:
            await asyncio.to_thread(setup.prepare)
            await self._pick_session(setup)
            hooks = await asyncio.to_thread(setup.untrusted_project_hooks)
            if hooks:
                resume_gc()
                from agentcli.config.trust import trust
                from agentcli.ui.tui.screens.trust import TrustScreen

                if await self.push_screen_wait(TrustScreen(setup.cwd, hooks)):
                    setup.options.trust_project = True
                    await asyncio.to_thread(trust, setup.cwd)
            setup.options.ask_permission = self.ask_permission
            setup.options.include_partial_messages = True
            setup.options.interactive = True
            try:
                engine = await setup.build_async()
            except StartupError as exc:
                if exc.can_fork:
                    from agentcli.ui.tui.screens.fork import ForkScreen

                    if not await self.push_screen_wait(ForkScreen(str(exc))):
                        raise
                    setup.fork_instead()
                elif setup.options.resume or setup.options.continue_session:
                    # A session that can't be resumed should not leave a screen that can't be used: say why and
                    # go on in a new session.
                    self.conversation.add_notice(f"{exc} Starting a new session instead.", "error")
                    self._reset_session_options(setup.options, None)
                else:
                    raise
                engine = await setup.build_async()
        except StartupError as exc:
            self._startup_failed(str(exc))
            return
        except Exception as exc:  # shown in the conversation: the app stays usable for /exit and reading
            self._startup_failed(f"agentcli could not start the session: {type(exc).__name__}: {exc}")
            return
        finally:
            resume_gc()
        self._started(engine)
        if setup.problems:
            from agentcli.ui.tui.screens.message_dialog import MessageDialog

            self.push_screen(MessageDialog("Some settings could not be used", list(setup.problems)))

    def _started(self: AgentApp, engine: Any) -> None:
        """The session is ready: show its history and warnings, then send what was typed meanwhile."""
        assert self.setup is not None
        options = self.setup.options
        self.engine = engine
        self.engine_error = None
        self.session_id = engine.session_id
        session = options.session
        for warning in [*getattr(session, "warnings", []), *options.notices]:
            self.conversation.add_notice(str(warning), "warning")
        history = getattr(session, "messages", None) or []
        # Everything said, before compactions too; the model is sent ``messages`` (from the last summary on).
        whole = getattr(session, "whole_history", None)
        self._show_history(whole() if history and whole is not None else history)
        if history and self._queue:
            # What was typed while the session loaded goes below its history.
            for _text, widget in self._queue:
                if widget is not None:
                    widget.remove()
            self._queue = [(text, self.conversation.add_prompt(text, queued=True)) for text, _widget in self._queue]
        state = self.status.state
        state.starting = False
        state.model = engine.config.model
        state.mode = engine.config.permission_mode
        state.window_override = engine.config.context.context_window
        state.cost_usd = float(getattr(engine, "total_cost_usd", 0) or 0)
        self._watch_extensions(engine)
        self.status.show()
        self._engine_ready.set()
        self._next_queued()

    def _watch_extensions(self: AgentApp, engine: Any) -> None:
        """MCP servers and background shells in the status bar, kept current as they change."""
        from agentcli.ui.extensions import extensions_summary, watch_extensions

        def changed() -> None:
            if self.engine is engine:
                self.status.state.extensions = extensions_summary(engine)
                self.status.show()

        self.status.state.extensions = extensions_summary(engine)
        watch_extensions(engine, changed)

    async def _pick_session(self: AgentApp, setup: SessionSetup) -> None:
        if not setup.pick_resume:
            return
        resume_gc()
        from agentcli.ui.tui.screens.resume_picker import ResumePicker

        sessions = await asyncio.to_thread(setup.list_sessions)
        choice = await self.push_screen_wait(ResumePicker(sessions)) if sessions else None
        if not sessions:
            self.conversation.add_notice("No earlier session in this folder; starting a new one.", "info")
        setup.options.resume = choice
        setup.pick_resume = False

    def pick_session(self: AgentApp) -> None:
        """``/resume``: choose another session of this folder and continue it here."""
        if self.setup is None or self.setup.options is None or not self._engine_ready.is_set():
            self.conversation.add_notice("The session is still starting; try /resume in a moment.", "info")
        elif self.busy:
            self.conversation.add_notice(
                "Finish or interrupt (esc) the current turn before switching sessions.", "warning"
            )
        else:
            self.run_worker(self._pick_and_switch(), group="resume", exclusive=True, exit_on_error=False)

    async def _pick_and_switch(self: AgentApp) -> None:
        from agentcli.ui.tui.screens.resume_picker import ResumePicker

        assert self.setup is not None
        sessions = [
            info for info in await asyncio.to_thread(self.setup.list_sessions) if info.session_id != self.session_id
        ]
        if not sessions:
            self.conversation.add_notice("No other session in this folder to resume.", "info")
            return
        choice = await self.push_screen_wait(ResumePicker(sessions, cancel_label="Esc to stay in this session"))
        if choice and not self.busy:
            await self.switch_session(choice)

    async def start_new_session(self: AgentApp) -> None:
        """``/clear``: end this session (it stays resumable) and go on in a new, empty one."""
        if self.setup is None or self.setup.options is None or not self._engine_ready.is_set():
            self.conversation.add_notice("The session is still starting; try /clear in a moment.", "info")
        elif self.busy:
            self.conversation.add_notice("Finish or interrupt (esc) the current turn first.", "warning")
        else:
            await self.switch_session(None)

    async def rewind(self: AgentApp) -> None:
        """``/rewind`` (and Esc twice): choose an earlier prompt, then whether the conversation, the files or both
        go back to before it; the prompt returns to the input for editing."""
        from agentcli.ui.rewind import WHAT_CHOICES, checkpoints_of, prompt_label, rewind
        from agentcli.ui.tui.screens.choice import ChoicePicker

        if self.busy:
            self.conversation.add_notice("Finish or interrupt (esc) the current turn first.", "warning")
            return
        store = checkpoints_of(self.engine)
        points = store.checkpoints() if store is not None else []
        if not points:
            self.conversation.add_notice("Nothing to rewind yet: no prompt was sent in this session.", "info")
            return
        answers = [(str(point.number), prompt_label(point)) for point in reversed(points)]
        hint = "Enter to choose · Esc to cancel"
        number = await self.push_screen_wait(ChoicePicker("Rewind to before which prompt?", answers, hint))
        if number is None:
            return
        what = await self.push_screen_wait(ChoicePicker("What should go back?", list(WHAT_CHOICES.items()), hint))
        if what is None:
            return
        outcome = await asyncio.to_thread(rewind, self.engine, self.cwd, int(number), what)
        if outcome.session_id is not None:
            await self.switch_session(outcome.session_id)
            self.prompt_input.set_prompt(outcome.prompt)
        detail = "\n".join([*outcome.restored, *outcome.problems])
        self.conversation.add_notice(outcome.summary(), "warning" if outcome.problems else "success", detail=detail)

    @staticmethod
    def _reset_session_options(options: Any, session_id: str | None) -> None:
        if options.session is not None:
            options.session.close()
        options.session = None
        options.resume = session_id
        options.continue_session = options.fork_session = False
        options.session_id = None
        options.notices = []

    async def switch_session(self: AgentApp, session_id: str | None) -> None:
        """End this session (SessionEnd hooks run) and continue ``session_id`` in its place (None: a new one).

        Prompts typed while the other session loads are queued, as at start-up.
        """
        setup = self.setup
        assert setup is not None
        previous = self.session_id if self.log_messages.has_prompt else None
        self._engine_ready.clear()
        self.status.state.starting = True
        self.status.show()
        await self._close_engine("other" if session_id else "clear")
        self._shell_context.clear()  # `!` output waiting for the next prompt belonged to the old conversation
        options = setup.options
        self._reset_session_options(options, session_id)
        try:
            engine = await setup.build_async()
        except Exception as exc:
            # The previous session is closed; go on in a new one rather than leave the app without a session.
            self.conversation.add_notice(f"Could not resume {session_id}: {exc}", "error")
            options.session, options.resume, options.notices = None, None, []
            try:
                engine = await setup.build_async()
            except Exception as retry_exc:
                self._startup_failed(f"agentcli could not start a session: {retry_exc}")
                return
        if session_id is None:
            engine.config.session_source = "clear"
        self.conversation.clear()
        self.log_messages.clear()
        transcript = self._transcript()
        if transcript is not None:
            transcript.conversation.clear()
        self.status.state.context_percent = 0
        queued, self._queue = self._queue, []
        self._started(engine)
        note = f" The previous one: agentcli --resume {previous}" if previous else ""
        what = "Switched to session" if session_id else "Started a new session:"
        self.conversation.add_notice(f"{what} {engine.session_id}.{note}", "success")
        # Prompts typed while the session loaded go to the new one, shown below its history.
        self._queue = [(text, self.conversation.add_prompt(text, queued=True)) for text, _widget in queued]
        self._next_queued()

    def _startup_failed(self: AgentApp, message: str) -> None:
        self.engine_error = message
        self.status.state.starting = False
        self.status.show()
        self.conversation.add_notice(message, "error")
        self._engine_ready.set()

    def _show_history(self: AgentApp, messages: list[Message]) -> None:
        """A resumed session's messages, drawn as finished blocks."""
        for message in history_messages(messages):
            self.show(message)
        if messages:
            self.conversation.add_notice(f"Resumed a session with {len(messages)} messages.", "info")

    def action_leave(self: AgentApp) -> None:
        """ctrl+d, /exit, ctrl+c twice: end the session (its SessionEnd hooks run) and exit."""
        if not self._leaving:
            self._leaving = True
            self.run_worker(self._leave(), group="leave", exit_on_error=False)

    async def _leave(self: AgentApp) -> None:
        try:
            await self._stop_running()
            await self._close_engine("prompt_input_exit")
        finally:
            if self.ended_by == signal.SIGHUP and self.setup is not None:
                # The terminal is gone: Textual's teardown would wait forever to write to it. All is saved.
                from agentcli.ui.signals import exit_status

                self.setup.close()
                os._exit(exit_status(signal.SIGHUP))
            self.exit()

    def _on_signal(self: AgentApp, signum: int) -> None:
        """SIGTERM, SIGHUP or SIGINT: leave as /exit does (the turn stops, its tools end, the transcript closes)."""
        from agentcli.ui.signals import exit_status

        if self.ended_by is not None:
            os._exit(exit_status(signum))  # a second signal: no more waiting
        self.ended_by = signum
        self.action_leave()

    async def action_quit(self: AgentApp) -> None:
        self.action_leave()

    async def _stop_running(self: AgentApp) -> None:
        """Interrupt the turn and any ``!`` command, and wait (briefly) for the engine to settle."""
        submission = self._submission
        if self.busy and self.engine is not None:
            self.engine.interrupt()
        for worker in list(self.workers):
            if worker.group in ("turn", "shell", "setup", "resume"):
                worker.cancel()
        if submission is not None:
            await submission.settle(2)

    async def _close_engine(self: AgentApp, reason: str) -> None:
        """End the session: SessionEnd hooks run with ``reason``, then the model client's connections close."""
        engine, self.engine = self.engine, None
        if engine is None:
            return
        self.status.state.hint = "Ending the session…"
        self.status.show()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(engine.aclose(reason), CLOSE_TIMEOUT_S)
        self.status.state.hint = ""
        self.status.show()

    async def on_unmount(self: AgentApp) -> None:
        """However the app ends, stop the turn and close the engine's connections on this event loop."""
        resume_gc()
        if self._submission is not None:
            await self._submission.stop(2)
        if self.engine is not None:
            engine, self.engine = self.engine, None
            with contextlib.suppress(Exception):
                await asyncio.wait_for(engine.aclose("other"), 2)
