"""AgentApp: agentcli's full-screen interface.

The app owns the session's engine and runs each prompt in one ``@work(exclusive=True, group="turn")`` worker.
Its jobs live beside it: starting and switching sessions (:mod:`.session_control`), prompts, turns and
permission questions (:mod:`.turns`), the completion menu (:mod:`.completion_menu`). The engine's messages go to
the conversation, the status line and a compact log that the ctrl+o transcript replays when it opens.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical

from agentcli.config.modes import CYCLED_MODES
from agentcli.ui.history import PromptHistory
from agentcli.ui.message_log import MessageLog
from agentcli.ui.session_setup import SessionSetup
from agentcli.ui.tui.completion_menu import CompletionMenu
from agentcli.ui.tui.session_control import SessionControl, resume_gc
from agentcli.ui.tui.themes import APP_VARIABLES, DEFAULT_THEME
from agentcli.ui.tui.turns import TurnControl
from agentcli.ui.tui.widgets.conversation import Conversation
from agentcli.ui.tui.widgets.prompt_input import PromptInput
from agentcli.ui.tui.widgets.status_bar import StatusBar
from agentcli.ui.tui.widgets.user_prompt import UserPrompt
from agentcli.ui.turn import Submission

__all__ = ["AgentApp", "resume_gc"]

Message = dict[str, Any]
DOUBLE_PRESS_S = 1.5
HELP = """Enter send · shift+enter / ctrl+j new line · ↑↓ history · ctrl+r search history
PgUp/PgDn shift+↑↓ ctrl+home/end scroll
esc interrupt · ctrl+o detailed transcript · shift+tab permission mode · ctrl+c clear (twice: exit) · ctrl+d twice exit
/ commands · @ attach a path · !cmd run a shell command"""


class AgentApp(SessionControl, TurnControl, CompletionMenu, App[None]):
    """The conversation, the prompt and the status line, around one engine."""

    CSS_PATH = "app.tcss"
    AUTO_FOCUS = "#prompt"
    ENABLE_COMMAND_PALETTE = False
    TITLE = "agentcli"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "Clear / exit", priority=True, show=False),
        Binding("ctrl+d", "ctrl_d", "Exit", priority=True, show=False),
        Binding("ctrl+q", "leave", "Exit", priority=True, show=False),
        Binding("ctrl+o", "toggle_transcript", "Transcript", priority=True, show=False),
        Binding("shift+tab", "cycle_mode", "Permission mode", priority=True, show=False),
        Binding("ctrl+r", "history_search", "History", show=False),
        Binding("pageup", "scroll('page_up')", "Scroll up", priority=True, show=False),
        Binding("pagedown", "scroll('page_down')", "Scroll down", priority=True, show=False),
        Binding("shift+up", "scroll('up')", show=False, priority=True),
        Binding("shift+down", "scroll('down')", show=False, priority=True),
        Binding("ctrl+home", "scroll('home')", show=False, priority=True),
        Binding("ctrl+end", "scroll('end')", show=False, priority=True),
    ]
    # Textual collects ``@on`` handlers from the App's own class body only; the jobs' handlers are named here.
    _submitted = TurnControl._submitted
    _update_completions = CompletionMenu._update_completions
    _completion_key = CompletionMenu._completion_key

    def __init__(
        self,
        setup: SessionSetup | None = None,
        *,
        cwd: Path | None = None,
        theme: str | None = None,
        themes: dict[str, Any] | None = None,
        history: PromptHistory | None = None,
        handle_signals: bool = False,
        first_prompt: str | None = None,
    ) -> None:
        super().__init__()
        self.first_prompt = first_prompt
        """``agentcli "PROMPT"``: sent as soon as the screen is up (it waits in the queue for the session)."""
        self.setup = setup
        self.handle_signals = handle_signals
        self.ended_by: int | None = None
        """The signal (SIGTERM, SIGHUP, SIGINT) that is ending this run, if one is."""
        self.cwd = cwd or (setup.cwd if setup is not None else Path.cwd())
        self._own_themes = themes or {}
        for registered in self._own_themes.values():
            self.register_theme(registered)
        wanted = theme or DEFAULT_THEME
        self.theme = wanted if wanted in self.available_themes else "textual-dark"
        self.prompt_history = history or PromptHistory(None)
        self.engine: Any = None
        self.engine_error: str | None = None
        self.log_messages = MessageLog()
        self.busy = False
        self.session_id: str | None = None
        self._engine_ready = asyncio.Event()
        self._queue: list[tuple[str, UserPrompt | None]] = []
        self._last_ctrl_c = 0.0
        self._last_ctrl_d = 0.0
        self._last_esc = 0.0
        self._bypass_confirmed = False
        self._submission: Submission | None = None
        self._shell_context: list[str] = []
        self._paths: Any = None
        self._permission_screen: Any = None
        self._completion_kind = ""
        self._completion_text = ""
        """The prompt text the completion menu was made for."""
        self._leaving = False

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(APP_VARIABLES)

    def compose(self) -> ComposeResult:
        # Kept by reference: they must be reachable while another screen (ctrl+o, a dialog) is on top.
        self.conversation = Conversation(cwd=self.cwd, id="conversation")
        self.prompt_input = PromptInput(
            self.prompt_history, id="prompt", placeholder="Ask agentcli… (/ for commands, @ for files)"
        )
        self.prompt_input.take_queued = self.take_queued
        self.status = StatusBar(id="status")
        self.completions: Any = None  # the menu is made the first time there is something to complete
        yield self.conversation
        with Vertical(id="prompt-box"):
            yield self.prompt_input
        yield self.status

    def _transcript(self) -> Any:
        if len(self.screen_stack) < 2:  # per message: the common case costs nothing
            return None
        from agentcli.ui.tui.screens.transcript import TranscriptScreen

        for screen in self.screen_stack:
            if isinstance(screen, TranscriptScreen):
                return screen
        return None

    def on_mount(self) -> None:
        self.set_interval(0.25, self._tick_status)
        if self.handle_signals:
            from agentcli.ui.signals import install

            install(self._on_signal)
        if self.setup is None:  # a view without a session (previews, snapshots): nothing to wait for
            self.status.state.starting = False
            self.status.show()
            self._engine_ready.set()
            return
        if self.first_prompt:
            self.send(self.first_prompt)
        # First frame first: the engine (settings, tools, SDK) is built once the screen is up.
        self.call_after_refresh(lambda: self.run_worker(self._prepare(), group="setup", exit_on_error=False))

    def show(self, message: Message) -> None:
        """Route one engine message to the views, the status line and the log."""
        self.log_messages.add(message)
        self.conversation.handle(message)
        transcript = self._transcript()
        if transcript is not None:
            transcript.handle(message)
        if self.status.state.read(message):
            self.status.show()

    def _tick_status(self) -> None:
        if not self.status.is_mounted:
            return
        state = self.status.state
        if state.busy_since is not None or state.retry_at is not None or state.hint:
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Scroll keys belong to a dialog while one is open (its preview scrolls), not to the conversation."""
        return not (action == "scroll" and self.screen is not self.screen_stack[0])

    def action_scroll(self, where: str) -> None:
        """Keyboard scrolling of the conversation while the prompt keeps the focus (the end re-sticks to new text)."""
        view = self.conversation
        if self.screen is not self.screen_stack[0]:
            return
        if where == "end":
            view.scroll_end(animate=False)
            view.anchor()
        else:
            getattr(view, f"scroll_{where}")(animate=False)

    def action_ctrl_d(self) -> None:
        """ctrl+d twice exits; the draft in the prompt is kept after one press (it is easy to hit by mistake)."""
        now = time.monotonic()
        if now - self._last_ctrl_d < DOUBLE_PRESS_S:
            self.action_leave()
            return
        self._last_ctrl_d = now
        self.status.state.hint = "Press ctrl+d again to exit"
        self.status.show()
        self.set_timer(DOUBLE_PRESS_S, self._clear_hint)

    def _clear_hint(self) -> None:
        self.status.state.hint = ""
        self.status.show()

    def action_toggle_transcript(self) -> None:
        from agentcli.ui.tui.screens.transcript import TranscriptScreen

        if isinstance(self.screen, TranscriptScreen):
            self.pop_screen()
        elif self._transcript() is None:
            self.push_screen(TranscriptScreen(self.log_messages, self.cwd))

    def action_cycle_mode(self) -> None:
        """shift+tab: default → acceptEdits → plan → bypassPermissions → default."""
        state = self.status.state
        cycle = CYCLED_MODES
        mode = cycle[(cycle.index(state.mode) + 1) % len(cycle)] if state.mode in cycle else "default"
        if mode == "bypassPermissions" and not self._bypass_confirmed:
            self._confirm_bypass()
            return
        self._set_mode(mode)

    def _set_mode(self, mode: str) -> None:
        self.status.state.mode = mode
        if self.engine is not None:
            self.engine.set_permission_mode(mode)
        self.status.show()

    def _confirm_bypass(self) -> None:
        """bypassPermissions runs every call without asking: the first time in a session, the user says so."""
        from agentcli.ui.tui.screens.choice import ChoicePicker

        def answered(answer: str | None) -> None:
            self._bypass_confirmed = answer == "yes"
            self._set_mode("bypassPermissions" if self._bypass_confirmed else "default")

        answers = [
            ("yes", "Yes, run every tool call without asking (commands, edits, network) for this session"),
            ("no", "No, go back to the default mode"),
        ]
        question = "Bypass permissions? agentcli will not ask before running anything."
        self.push_screen(ChoicePicker(question, answers, "Enter to choose · Esc for no", highlighted=1), answered)

    def action_history_search(self) -> None:
        from agentcli.ui.tui.screens.history_search import HistorySearch

        def chosen(text: str | None) -> None:
            if text:
                self.prompt_input.set_prompt(text)
            self.prompt_input.focus()

        self.push_screen(HistorySearch(self.prompt_history, self.prompt_input.text), callback=chosen)

    def set_theme(self, name: str) -> str | None:
        """Switch theme; returns an error message for an unknown name."""
        if name not in self.available_themes:
            return f"Unknown theme {name!r}; available: {', '.join(self.theme_names())}"
        self.theme = name
        return None

    def theme_names(self) -> list[str]:
        own = list(self._own_themes)
        return own + sorted(name for name in self.available_themes if name not in own)
