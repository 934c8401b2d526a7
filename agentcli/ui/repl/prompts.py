"""Reading the terminal with prompt-toolkit: the prompt, one-key and one-line questions, keys while the agent works.

Everything takes the prompt-toolkit ``Input``/``Output`` to use, so the same code reads a real terminal or a pipe.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import History
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPress, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

from agentcli.ui.history import PromptHistory

ESCAPE_FLUSH_S = 0.05
"""How long a lone Esc byte waits for the rest of an escape sequence before it counts as the Esc key."""
STYLE = Style.from_dict({"prompt": "bold ansicyan", "placeholder": "#808080", "question": "bold"})
KEYS_HELP = (
    "Enter send · alt+enter / ctrl+j new line · ↑↓ history · ctrl+r search history\n"
    "/ commands · !cmd run a shell command · esc or ctrl+c interrupt the agent · ctrl+c clear the prompt · ctrl+d exit"
)
PLACEHOLDER = "Ask agentcli… (/ for commands · alt+enter or ctrl+j for a new line)"
_IGNORED_KEYS = frozenset(
    {Keys.CPRResponse, Keys.Vt100MouseEvent, Keys.WindowsMouseEvent, Keys.ScrollUp, Keys.ScrollDown, Keys.Ignore}
)


class SharedHistory(History):
    """prompt-toolkit's view of the prompt history file the full-screen interface uses too."""

    def __init__(self, store: PromptHistory) -> None:
        super().__init__()
        self.store = store

    def load_history_strings(self) -> Iterable[str]:
        return list(reversed(self.store.entries))

    def store_string(self, string: str) -> None:
        self.store.add(string)


class SlashCompleter(Completer):
    """Command names after a leading ``/`` (the session's custom commands too, once it has started)."""

    def __init__(self, engine: Callable[[], Any] = lambda: None) -> None:
        self.engine = engine

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        text = document.text_before_cursor
        if not text.startswith("/") or " " in text or "\n" in text:
            return
        from agentcli.commands import session_registry

        for value, description in session_registry(self.engine()).complete(text, "plain"):
            yield Completion(value.rstrip(), start_position=-len(text), display_meta=description)


def _prompt_bindings() -> KeyBindings:
    bindings = KeyBindings()

    @bindings.add("enter")
    def _send(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        completer = buffer.completer
        offered = [c.text for c in completer.get_completions(buffer.document, CompleteEvent())] if completer else []
        if offered and buffer.text not in offered:
            buffer.text = offered[0]  # "/he" + Enter runs /help
        buffer.validate_and_handle()

    @bindings.add("c-j")
    @bindings.add("escape", "enter")
    def _new_line(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @bindings.add("c-c")
    def _clear(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.text:
            buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt())

    return bindings


def _placeholder() -> FormattedText:
    # Only while the prompt is open: a prompt left by ctrl+c or ctrl+d stays in the scrollback without it.
    return FormattedText([] if get_app().is_done else [("class:placeholder", PLACEHOLDER)])


def make_prompt_session(
    history: PromptHistory,
    *,
    input: Input | None = None,
    output: Output | None = None,
    engine: Callable[[], Any] = lambda: None,
) -> PromptSession[str]:
    """The main prompt: Enter sends, alt+enter / ctrl+j add a line, ↑↓ and ctrl+r search the shared history."""
    return PromptSession(
        FormattedText([("class:prompt", "❯ ")]),
        multiline=True,
        key_bindings=_prompt_bindings(),
        history=SharedHistory(history),
        completer=SlashCompleter(engine),
        complete_while_typing=True,
        prompt_continuation="  ",
        placeholder=_placeholder,
        style=STYLE,
        reserve_space_for_menu=8,
        input=input,
        output=output,
    )


async def ask_key(
    message: str, answers: Mapping[str, str], *, input: Input | None = None, output: Output | None = None
) -> str | None:
    """Wait for one of ``answers``' keys and return its value; Esc returns None, ctrl+c raises KeyboardInterrupt.

    Other keys do nothing, so a stray Enter or letter never picks an answer the user did not mean."""
    bindings = KeyBindings()

    @bindings.add(Keys.Any)
    def _ignore(event: KeyPressEvent) -> None:
        return None

    for key, value in answers.items():
        bindings.add(key)(_exit_with(value))

    @bindings.add("escape", eager=True)
    @bindings.add("c-d")
    def _cancel(event: KeyPressEvent) -> None:
        event.app.exit(result=None)

    @bindings.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        event.app.exit(exception=KeyboardInterrupt())

    session: PromptSession[str | None] = PromptSession(
        FormattedText([("class:question", message)]),
        key_bindings=bindings,
        style=STYLE,
        erase_when_done=True,
        input=input,
        output=output,
    )
    return await session.prompt_async()


def _exit_with(value: str) -> Callable[[KeyPressEvent], None]:
    def handler(event: KeyPressEvent) -> None:
        event.app.exit(result=value)

    return handler


async def ask_line(message: str, *, input: Input | None = None, output: Output | None = None) -> str | None:
    """One line of text (Enter sends); Esc or ctrl+d return None, ctrl+c raises KeyboardInterrupt."""
    bindings = KeyBindings()

    @bindings.add("escape", eager=True)
    @bindings.add("c-d")
    def _cancel(event: KeyPressEvent) -> None:
        event.app.exit(result=None)

    @bindings.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        event.app.exit(exception=KeyboardInterrupt())

    session: PromptSession[str | None] = PromptSession(
        FormattedText([("class:question", message)]), key_bindings=bindings, style=STYLE, input=input, output=output
    )
    return await session.prompt_async()


class KeyWatcher:
    """The keyboard while the agent works: Esc and ctrl+c interrupt, anything else is kept for the next prompt.

    The terminal is in raw mode meanwhile, so typed keys neither echo into the output nor raise SIGINT."""

    def __init__(self, input: Input, on_interrupt: Callable[[], None]) -> None:
        self.input = input
        self.on_interrupt = on_interrupt
        self.typeahead: list[KeyPress] = []
        self._stack = contextlib.ExitStack()
        self._flush: asyncio.TimerHandle | None = None

    def start(self) -> bool:
        """Start watching; False when the input can't be watched (it is closed or not pollable)."""
        try:
            self._stack.enter_context(self.input.raw_mode())
            self._stack.enter_context(self.input.attach(self._ready))
        except (EOFError, OSError):
            self._stack.close()
            return False
        return True

    def stop(self) -> None:
        """Give the terminal back (cooked mode) before the next prompt."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        self._stack.close()

    @contextlib.contextmanager
    def suspended(self) -> Iterator[None]:
        """Leave the keys to a question for a while (they wait unread in the terminal until it asks)."""
        with self.input.detach():
            yield

    def _ready(self) -> None:
        self._take(self.input.read_keys())
        if self._flush is not None:
            self._flush.cancel()
        self._flush = asyncio.get_running_loop().call_later(ESCAPE_FLUSH_S, self._flush_keys)

    def _flush_keys(self) -> None:
        self._flush = None
        self._take(self.input.flush_keys())

    def _take(self, keys: list[KeyPress]) -> None:
        for press in keys:
            if press.key in (Keys.Escape, Keys.ControlC):
                self.on_interrupt()
            elif press.key not in _IGNORED_KEYS:
                self.typeahead.append(press)
