"""AgentApp: agentcli's full-screen interface.

The app owns the session's engine and runs each prompt in one ``@work(exclusive=True, group="turn")`` worker.
The engine's messages are read by a small pump task (so ``engine.interrupt()`` always lands inside the engine)
and shown by the conversation without awaiting the screen. Every message also goes to a compact log that the
ctrl+o transcript replays when it opens and then follows live.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from pathlib import Path
from typing import Any, ClassVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical

from agentcli.ui.startup import pump_submission
from agentcli.ui.tui.history import PromptHistory
from agentcli.ui.tui.session_setup import SessionSetup
from agentcli.ui.tui.themes import APP_VARIABLES, DEFAULT_THEME
from agentcli.ui.tui.widgets.conversation import Conversation
from agentcli.ui.tui.widgets.prompt_input import PromptInput
from agentcli.ui.tui.widgets.status_bar import StatusBar
from agentcli.ui.tui.widgets.user_prompt import UserPrompt

Message = dict[str, Any]
CONTEXT_WINDOW = 200_000
DOUBLE_PRESS_S = 1.5
CLOSE_TIMEOUT_S = 5
"""How long exiting waits for SessionEnd hooks and the connections to close."""
MODES = ("default", "acceptEdits", "plan", "bypassPermissions")
HELP = """Enter send · shift+enter / ctrl+j new line · ↑↓ history · ctrl+r search history
esc interrupt · ctrl+o detailed transcript · shift+tab permission mode · ctrl+c clear (twice: exit) · ctrl+d exit
/ commands · @ attach a path · !cmd run a shell command"""


def resume_gc() -> None:
    """Turn cyclic garbage collection back on after start-up, leaving the objects made so far out of it."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


class AgentApp(App[None]):
    """The conversation, the prompt and the status line, around one engine."""

    CSS_PATH = "app.tcss"
    AUTO_FOCUS = "#prompt"
    ENABLE_COMMAND_PALETTE = False
    TITLE = "agentcli"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "Clear / exit", priority=True, show=False),
        Binding("ctrl+d", "leave", "Exit", priority=True, show=False),
        Binding("ctrl+q", "leave", "Exit", priority=True, show=False),
        Binding("ctrl+o", "toggle_transcript", "Transcript", priority=True, show=False),
        Binding("shift+tab", "cycle_mode", "Permission mode", priority=True, show=False),
        Binding("ctrl+r", "history_search", "History", show=False),
    ]

    def __init__(self, setup: SessionSetup | None = None, *, cwd: Path | None = None,
                 theme: str | None = None, themes: dict[str, Any] | None = None,
                 history: PromptHistory | None = None) -> None:
        super().__init__()
        self.setup = setup
        self.cwd = cwd or (setup.cwd if setup is not None else Path.cwd())
        self._own_themes = themes or {}
        for registered in self._own_themes.values():
            self.register_theme(registered)
        wanted = theme or DEFAULT_THEME
        self.theme = wanted if wanted in self.available_themes else "textual-dark"
        self.prompt_history = history or PromptHistory(None)
        self.engine: Any = None
        self.engine_error: str | None = None
        self.log_messages: list[Message] = []
        self.busy = False
        self.session_id: str | None = None
        self._engine_ready = asyncio.Event()
        self._queue: list[tuple[str, UserPrompt | None]] = []
        self._stream_start: int | None = None
        self._last_ctrl_c = 0.0
        self._pump: asyncio.Task[None] | None = None
        self._shell_context: list[str] = []
        self._paths: Any = None
        self._permission_screen: Any = None
        self._completion_kind = ""
        self._leaving = False

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(APP_VARIABLES)

    def compose(self) -> ComposeResult:
        # Kept by reference: they must be reachable while another screen (ctrl+o, a dialog) is on top.
        self.conversation = Conversation(cwd=self.cwd, id="conversation")
        self.prompt_input = PromptInput(self.prompt_history, id="prompt",
                                        placeholder="Ask agentcli… (/ for commands, @ for files)")
        self.status = StatusBar(id="status")
        self.completions: Any = None  # the menu is made the first time there is something to complete
        yield self.conversation
        with Vertical(id="prompt-box"):
            yield self.prompt_input
        yield self.status

    def _transcript(self) -> Any:
        from agentcli.ui.tui.screens.transcript import TranscriptScreen

        for screen in self.screen_stack:
            if isinstance(screen, TranscriptScreen):
                return screen
        return None

    # -- start-up ---------------------------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.set_interval(0.25, self._tick_status)
        if self.setup is None:
            self.status.state.starting = False
            self.status.show()
            return
        # First frame first: the engine (settings, tools, SDK) is built once the screen is up.
        self.call_after_refresh(lambda: self.run_worker(self._prepare(), group="setup", exit_on_error=False))

    async def _prepare(self) -> None:
        setup = self.setup
        assert setup is not None
        from agentcli.ui.tui.session_setup import StartupError

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

    def _started(self, engine: Any) -> None:
        """The session is ready: show its history and warnings, then send what was typed meanwhile."""
        assert self.setup is not None
        options = self.setup.options
        self.engine = engine
        self.engine_error = None
        self.session_id = engine.session_id
        session = options.session
        for warning in [*getattr(session, "warnings", []), *options.notices]:
            self.conversation.add_notice(str(warning), "warning")
        self._show_history(getattr(session, "messages", None) or [])
        state = self.status.state
        state.starting = False
        state.model = engine.config.model
        state.mode = engine.config.permission_mode
        state.cost_usd = float(getattr(engine, "total_cost_usd", 0) or 0)
        self.status.show()
        self._engine_ready.set()
        self._next_queued()

    async def _pick_session(self, setup: SessionSetup) -> None:
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

    # -- switching sessions (/resume) -------------------------------------------------------------------------------

    def pick_session(self) -> None:
        """``/resume``: choose another session of this folder and continue it here."""
        if self.setup is None or self.setup.options is None or not self._engine_ready.is_set():
            self.conversation.add_notice("The session is still starting; try /resume in a moment.", "info")
        elif self.busy:
            self.conversation.add_notice("Finish or interrupt (esc) the current turn before switching sessions.",
                                         "warning")
        else:
            self.run_worker(self._pick_and_switch(), group="resume", exclusive=True, exit_on_error=False)

    async def _pick_and_switch(self) -> None:
        from agentcli.ui.tui.screens.resume_picker import ResumePicker

        assert self.setup is not None
        sessions = [info for info in await asyncio.to_thread(self.setup.list_sessions)
                    if info.session_id != self.session_id]
        if not sessions:
            self.conversation.add_notice("No other session in this folder to resume.", "info")
            return
        choice = await self.push_screen_wait(ResumePicker(sessions, cancel_label="Esc to stay in this session"))
        if choice and not self.busy:
            await self.switch_session(choice)

    async def switch_session(self, session_id: str) -> None:
        """End this session (SessionEnd hooks run) and continue ``session_id`` in its place.

        Prompts typed while the other session loads are queued, as at start-up.
        """
        setup = self.setup
        assert setup is not None
        previous = self.session_id if any(m.get("type") == "user" for m in self.log_messages) else None
        self._engine_ready.clear()
        self.status.state.starting = True
        self.status.show()
        await self._close_engine("other")
        options = setup.options
        if options.session is not None:
            options.session.close()
        options.session = None
        options.resume = session_id
        options.continue_session = options.fork_session = False
        options.session_id = None
        options.notices = []
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
        self.conversation.clear()
        self.log_messages.clear()
        transcript = self._transcript()
        if transcript is not None:
            transcript.conversation.clear()
        self.status.state.context_percent = 0
        queued, self._queue = self._queue, []
        self._started(engine)
        note = f" The previous one: agentcli --resume {previous}" if previous else ""
        self.conversation.add_notice(f"Switched to session {engine.session_id}.{note}", "success")
        # Prompts typed while the session loaded go to the new one, shown below its history.
        self._queue = [(text, self.conversation.add_prompt(text, queued=True)) for text, _widget in queued]
        self._next_queued()

    def _startup_failed(self, message: str) -> None:
        self.engine_error = message
        self.status.state.starting = False
        self.status.show()
        self.conversation.add_notice(message, "error")
        self._engine_ready.set()

    def _show_history(self, messages: list[Message]) -> None:
        """A resumed session's messages, drawn as finished blocks."""
        for index, param in enumerate(messages):
            role = param.get("role")
            if role == "assistant":
                message = {"type": "assistant", "message": {"id": f"history_{index}", **param}}
            else:
                message = {"type": "user", "message": param}
            self.show(message)
        if messages:
            self.conversation.add_notice(f"Resumed a session with {len(messages)} messages.", "info")

    # -- showing messages -------------------------------------------------------------------------------------------

    def show(self, message: Message) -> None:
        """Route one engine message to the views, the status line and the log."""
        self._log(message)
        self.conversation.handle(message)
        transcript = self._transcript()
        if transcript is not None:
            transcript.handle(message)
        self._update_status(message)

    def _log(self, message: Message) -> None:
        kind = message.get("type")
        log = self.log_messages
        if kind == "stream_event":
            if (message.get("event") or {}).get("type") == "message_start":
                self._stream_start = len(log)
        elif kind == "assistant" and self._stream_start is not None:
            # The complete message replaces its stream events; the log stays small however long the answer.
            # It takes the place of the first of them, so a replay meets it before the tool events it caused.
            start = self._stream_start
            log[start:] = [message, *(m for m in log[start:] if m.get("type") != "stream_event")]
            self._stream_start = None
            return
        elif kind == "system" and message.get("subtype") == "tool_progress" and log and \
                log[-1].get("subtype") == "tool_progress" and log[-1].get("tool_use_id") == message.get("tool_use_id"):
            log[-1] = message
            return
        log.append(message)

    def _update_status(self, message: Message) -> None:
        state = self.status.state
        kind = message.get("type")
        if kind == "assistant":
            usage = (message.get("message") or {}).get("usage") or {}
            used = sum(int(usage.get(key) or 0) for key in (
                "input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"))
            if used:
                state.context_percent = 100 * used / CONTEXT_WINDOW
            state.retry_at = None
        elif kind == "stream_event":
            if state.retry_at is not None:
                state.retry_at = None
            else:
                return
        elif kind == "system":
            subtype = message.get("subtype")
            if subtype == "api_retry":
                state.retry_at = time.monotonic() + (message.get("retry_delay_ms") or 0) / 1000
                state.retry_attempt = int(message.get("attempt") or 0)
                state.retry_max = int(message.get("max_retries") or 0)
            elif subtype == "init":
                state.model = str(message.get("model") or state.model)
                state.mode = str(message.get("permissionMode") or state.mode)
            else:
                return
        elif kind == "result":
            state.cost_usd = float(message.get("total_cost_usd") or 0)
            state.retry_at = None
        else:
            return
        self.status.show()

    def _tick_status(self) -> None:
        if not self.status.is_mounted:
            return
        state = self.status.state
        if state.busy_since is not None or state.retry_at is not None or state.hint:
            self.status.show()

    # -- prompts ----------------------------------------------------------------------------------------------------

    @on(PromptInput.Submitted, "#prompt")
    def _submitted(self, event: PromptInput.Submitted) -> None:
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

    def send(self, text: str) -> None:
        """Send now, or queue behind the running turn (or the session still starting)."""
        if self.busy or not self._engine_ready.is_set() or self._queue:
            widget = self.conversation.add_prompt(text, queued=True)
            self._queue.append((text, widget))
            self.status.state.queued = len(self._queue)
            self.status.show()
            return
        self.conversation.add_prompt(text)
        self._start(text)

    def _start(self, text: str) -> None:
        if self._shell_context:
            text = "\n".join([*self._shell_context, text])
            self._shell_context.clear()
        self.log_messages.append({"type": "user", "message": {"role": "user", "content": text}})
        transcript = self._transcript()
        if transcript is not None:
            transcript.handle(self.log_messages[-1])
        self.busy = True
        self.status.state.busy_since = time.monotonic()
        self.status.show()
        self.run_turn(text)

    def _next_queued(self) -> None:
        if self.busy or not self._queue or not self._engine_ready.is_set():
            return
        text, widget = self._queue.pop(0)
        self.status.state.queued = len(self._queue)
        if widget is not None:
            widget.mark_sent()
        self._start(text)

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def run_turn(self, prompt: str) -> None:
        """One prompt through the engine; messages are shown as they come."""
        await self._engine_ready.wait()
        engine = self.engine
        if engine is None:
            self.conversation.add_notice(self.engine_error or "The session is not available.", "error")
            self._turn_done()
            return
        queue: asyncio.Queue[Message | BaseException | None] = asyncio.Queue()

        self._pump = asyncio.create_task(pump_submission(engine, prompt, queue))
        try:
            while True:
                item = await queue.get()
                batch = [item]
                while not queue.empty():
                    batch.append(queue.get_nowait())
                for entry in batch:
                    if entry is None:
                        return
                    if isinstance(entry, BaseException):
                        self.conversation.add_notice(f"Unexpected error: {type(entry).__name__}: {entry}", "error")
                    else:
                        self.show(entry)
        finally:
            pump_task, self._pump = self._pump, None
            if pump_task is not None and not pump_task.done():
                engine.interrupt()
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(asyncio.shield(pump_task), 5)
            self._turn_done()

    def _turn_done(self) -> None:
        self.busy = False
        self.status.state.busy_since = None
        self.status.state.retry_at = None
        self.status.show()
        self.call_later(self._next_queued)

    # -- permissions ------------------------------------------------------------------------------------------------

    async def ask_permission(self, request: Any) -> Any:
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
            self.run_worker(self.engine.notify(f"agentcli needs your permission to use {request.tool_name}",
                                               "Permission needed"), group="notify", exit_on_error=False)
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
        return answer

    # -- actions ----------------------------------------------------------------------------------------------------

    def action_interrupt(self) -> None:
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

    def _drop_queue(self) -> None:
        for _text, widget in self._queue:
            if widget is not None:
                widget.remove()
        self._queue.clear()
        self.status.state.queued = 0
        self.status.show()

    def action_ctrl_c(self) -> None:
        now = time.monotonic()
        if now - self._last_ctrl_c < DOUBLE_PRESS_S:
            self.action_leave()
            return
        self._last_ctrl_c = now
        if self.prompt_input.text:
            self.prompt_input.clear_prompt()
        elif self.busy:
            self.action_interrupt()
        self.status.state.hint = "Press ctrl+c again to exit"
        self.status.show()
        self.set_timer(DOUBLE_PRESS_S, self._clear_hint)

    def _clear_hint(self) -> None:
        self.status.state.hint = ""
        self.status.show()

    def action_leave(self) -> None:
        """ctrl+d, /exit, ctrl+c twice: end the session (its SessionEnd hooks run) and exit."""
        if not self._leaving:
            self._leaving = True
            self.run_worker(self._leave(), group="leave", exit_on_error=False)

    async def _leave(self) -> None:
        try:
            await self._stop_running()
            await self._close_engine("prompt_input_exit")
        finally:
            self.exit()

    async def action_quit(self) -> None:
        self.action_leave()

    async def _stop_running(self) -> None:
        """Interrupt the turn and any ``!`` command, and wait (briefly) for the engine to settle."""
        pump = self._pump
        if self.busy and self.engine is not None:
            self.engine.interrupt()
        for worker in list(self.workers):
            if worker.group in ("turn", "shell", "setup", "resume"):
                worker.cancel()
        if pump is not None and not pump.done():
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(pump), 2)

    async def _close_engine(self, reason: str) -> None:
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

    async def on_unmount(self) -> None:
        """However the app ends, stop the turn and close the engine's connections on this event loop."""
        resume_gc()
        pump = self._pump
        if pump is not None and not pump.done() and self.engine is not None:
            self.engine.interrupt()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(pump), 2)
        if self.engine is not None:
            engine, self.engine = self.engine, None
            with contextlib.suppress(Exception):
                await asyncio.wait_for(engine.aclose("other"), 2)

    def action_toggle_transcript(self) -> None:
        from agentcli.ui.tui.screens.transcript import TranscriptScreen

        if isinstance(self.screen, TranscriptScreen):
            self.pop_screen()
        elif self._transcript() is None:
            self.push_screen(TranscriptScreen(self.log_messages, self.cwd))

    def action_cycle_mode(self) -> None:
        """shift+tab: default → acceptEdits → plan → bypassPermissions → default."""
        state = self.status.state
        mode = MODES[(MODES.index(state.mode) + 1) % len(MODES)] if state.mode in MODES else "default"
        state.mode = mode
        if self.engine is not None:
            self.engine.set_permission_mode(mode)
        self.status.show()

    def action_history_search(self) -> None:
        from agentcli.ui.tui.screens.history_search import HistorySearch

        def chosen(text: str | None) -> None:
            if text:
                self.prompt_input.set_prompt(text)
            self.prompt_input.focus()

        self.push_screen(HistorySearch(self.prompt_history, self.prompt_input.text), callback=chosen)

    # -- slash commands and shell -----------------------------------------------------------------------------------

    def run_command(self, text: str) -> None:
        from agentcli.ui.tui.commands import run_slash_command

        run_slash_command(self, text)

    def run_shell(self, command: str) -> None:
        self.conversation.add_prompt(command, shell=True)
        self._shell_worker(command)

    @work(group="shell", exit_on_error=False)
    async def _shell_worker(self, command: str) -> None:
        from agentcli.ui.tui.shell_command import run_shell_command

        context = await run_shell_command(command, self.cwd, self.conversation)
        self._shell_context.append(context)

    def set_theme(self, name: str) -> str | None:
        """Switch theme; returns an error message for an unknown name."""
        if name not in self.available_themes:
            return f"Unknown theme {name!r}; available: {', '.join(self.theme_names())}"
        self.theme = name
        return None

    def theme_names(self) -> list[str]:
        own = list(self._own_themes)
        return own + sorted(name for name in self.available_themes if name not in own)

    # -- completion -------------------------------------------------------------------------------------------------

    @on(PromptInput.Changed, "#prompt")
    def _update_completions(self) -> None:
        prompt = self.prompt_input
        text = prompt.text
        options: list[tuple[str, str]] = []
        kind = ""
        if text.startswith("/"):
            from agentcli.ui.tui.completion import complete_command

            options = complete_command(text, self.theme_names())
            kind = "command"
        else:
            word, _ = prompt.word_before_cursor()
            if word.startswith("@"):
                if self._paths is None:
                    from agentcli.ui.tui.completion import PathIndex

                    self._paths = PathIndex(self.cwd)
                options = [(f"@{path}", "") for path in self._paths.complete(word)]
                kind = "path"
        if not options or (len(options) == 1 and options[0][0].strip() == text.strip()):
            self._hide_completions()
            return
        from textual.widgets import OptionList
        from textual.widgets.option_list import Option

        menu = self.completions
        if menu is None:
            menu = self.completions = OptionList(id="completions")
            self.mount(menu, before="#prompt-box")
        menu.clear_options()
        menu.add_options(Option(f"{value}  {help_text}".rstrip(), id=value) for value, help_text in options)
        menu.highlighted = 0
        menu.add_class("-visible")
        self._completion_kind = kind
        prompt.completing = True

    def _hide_completions(self) -> None:
        self._completion_kind = ""
        self.prompt_input.completing = False
        if self.completions is not None:
            self.completions.remove_class("-visible")

    @on(PromptInput.CompletionKey, "#prompt")
    def _completion_key(self, event: PromptInput.CompletionKey) -> None:
        menu = self.completions
        if menu is None or event.key == "escape":
            self._hide_completions()
        elif event.key in ("up", "down") and menu.option_count:
            step = -1 if event.key == "up" else 1
            menu.highlighted = ((menu.highlighted or 0) + step) % menu.option_count
        elif event.key in ("tab", "enter"):
            index = menu.highlighted
            if index is None or not menu.option_count:
                self._hide_completions()
                return
            value = str(menu.get_option_at_index(index).id)
            self._accept_completion(value, submit=event.key == "enter")

    def _accept_completion(self, value: str, *, submit: bool) -> None:
        prompt = self.prompt_input
        kind = self._completion_kind
        self._hide_completions()
        if kind == "command":
            prompt.set_prompt(value)
            if submit and not value.endswith(" "):
                prompt.post_message(PromptInput.Submitted(prompt, value))
            return
        _word, start = prompt.word_before_cursor()
        prompt.replace(value + ("" if value.endswith("/") else " "), start, prompt.cursor_location)
