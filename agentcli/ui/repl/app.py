"""The REPL: start a session (resume menu, folder trust), then prompt, run the turn, print, and prompt again.

One asyncio loop runs everything. Each prompt's messages are read from the engine by a pump task of their own, so
``engine.interrupt()`` always lands inside the engine, and printed by the turn loop. A permission question holds
the printing back until it is answered (the engine keeps streaming into the queue meanwhile), so the question and
the output never interleave.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from prompt_toolkit.input import Input, create_input
from prompt_toolkit.input.typeahead import store_typeahead
from prompt_toolkit.output import Output, create_output
from rich.console import Console
from rich.text import Text

from agentcli import __version__
from agentcli.tools.permissions import PermissionAnswer, PermissionRequest
from agentcli.ui.history import PromptHistory
from agentcli.ui.repl import questions
from agentcli.ui.repl.prompts import KeyWatcher, make_prompt_session
from agentcli.ui.repl.render import FRAME_S, TurnView, make_console
from agentcli.ui.session_setup import (
    SessionSetup,
    StartupError,
    credentials_problem,
    exit_epilogue,
    session_values,
    warm_up,
)
from agentcli.ui.shell_command import run_shell_command, session_shell, with_shell_input
from agentcli.ui.signals import exit_status, install
from agentcli.ui.turn import Submission

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
CLOSE_TIMEOUT_S = 5


class Repl:
    """One inline session: the prompt, the engine, and the view that prints what it does."""

    def __init__(
        self,
        setup: SessionSetup,
        *,
        console: Console | None = None,
        input: Input | None = None,
        output: Output | None = None,
        history: PromptHistory | None = None,
        handle_signals: bool = False,
        first_prompt: str | None = None,
    ) -> None:
        self.setup = setup
        self.first_prompt = first_prompt
        self.cwd = setup.cwd
        self.console = console or make_console()
        self.input = input or create_input()
        self.output = output or create_output()
        self.history = history or PromptHistory(None)
        self.handle_signals = handle_signals
        self.view = TurnView(self.console, self.cwd)
        self.session = make_prompt_session(
            self.history, input=self.input, output=self.output, engine=lambda: self.engine
        )
        self.engine: Any = None
        self.busy = False
        self.prompting = False
        self.resume_ids: list[str] = []
        self.ended_by: int | None = None
        """The signal that is ending this run, if one is."""
        """Sessions of this run that have messages, in order (``/clear`` starts another)."""
        self._output_free = asyncio.Event()
        self._output_free.set()
        self._watcher: KeyWatcher | None = None
        self._typeahead: list[Any] = []
        self._background: set[asyncio.Task[Any]] = set()
        self._shell: asyncio.Future[str] | None = None
        """The ``!`` command running now, if one is."""
        self._shell_context: list[str] = []
        """What the ``!`` commands since the last prompt printed, for the model (see :func:`context_block`)."""

    # -- start and end ----------------------------------------------------------------------------------------------

    async def run(self) -> int:
        """Start the session, then read and run prompts until ctrl+d or ``/exit``; returns the exit status."""
        # Raw mode from start to end, not only while a prompt is open: keys typed ahead (at start-up, or as a turn
        # ends) are then neither echoed over the output nor turned into a new line by the terminal (Enter is CR
        # only in raw mode; cooked mode makes it LF, which is ctrl+j here).
        remove_handlers = install(self._on_signal, (signal.SIGTERM, signal.SIGHUP)) if self.handle_signals else None
        try:
            with self.input.raw_mode():
                code = await self._run()
        finally:
            if remove_handlers is not None:
                remove_handlers()
        return exit_status(self.ended_by) if self.ended_by is not None else code

    def _on_signal(self, signum: int) -> None:
        """SIGTERM or SIGHUP: stop the turn (its tools end, it is recorded as interrupted), then leave."""
        if self.ended_by is not None:
            os._exit(exit_status(signum))  # a second signal: no more waiting
        self.ended_by = signum
        if self.busy:
            self.interrupt()
        elif self.prompting and self.session.app.is_running:
            self.session.app.exit(exception=EOFError())

    async def _run(self) -> int:
        setup = self.setup
        try:
            await asyncio.to_thread(setup.prepare)
            for problem in setup.problems:
                self.view.warning(f"Settings file not used: {problem}")
            if setup.pick_resume:
                await self._pick_session()
            hooks = await asyncio.to_thread(setup.untrusted_project_hooks)
            if hooks and await questions.ask_trust(self.console, self.cwd, hooks, input=self.input, output=self.output):
                from agentcli.config.trust import trust

                setup.options.trust_project = True
                await asyncio.to_thread(trust, self.cwd)
            options = setup.options
            options.ask_permission = self.ask_permission
            options.include_partial_messages = True
            options.interactive = True
            try:
                self.engine = await asyncio.to_thread(setup.build)
            except StartupError as busy:
                if not busy.can_fork or not await questions.ask_fork(
                    self.console, str(busy), input=self.input, output=self.output
                ):
                    raise
                setup.fork_instead()
                self.engine = await asyncio.to_thread(setup.build)
        except StartupError as exc:
            self.view.error(f"agentcli: {exc}")
            return int(getattr(exc.__context__, "exit_code", EXIT_ERROR))
        except Exception as exc:
            self.view.error(f"agentcli could not start the session: {type(exc).__name__}: {exc}")
            return EXIT_ERROR
        self._started()
        try:
            if self.first_prompt:
                self.history.add(self.first_prompt)
                self.view.show_prompt(self.first_prompt)
                await self.run_turn(self.first_prompt)
            await self._prompt_loop()
        finally:
            await self._close("prompt_input_exit")
        if self.resume_ids:
            self.console.print(
                Text.assemble("Resume this session with:\n  ", (f"agentcli --resume {self.resume_ids[-1]}", "bold"))
            )
        return EXIT_OK

    def _started(self) -> None:
        engine = self.engine
        session = self.setup.options.session
        for warning in [*getattr(session, "warnings", []), *self.setup.options.notices]:
            self.view.warning(str(warning))
        self.view.print(
            Text.assemble(("agentcli ", "bold"), (f"{__version__} · {engine.config.model} · {self.cwd}", "dim"))
        )
        self.view.notice("/help for keys and commands · esc interrupts · ctrl+d exits")
        if engine.messages:
            self.view.notice(f"Resumed session {engine.session_id} ({len(engine.messages)} messages)")
            self._show_resumed()
        self._spawn(asyncio.to_thread(warm_up, engine))

    def _show_resumed(self) -> None:
        engine = self.engine
        if engine.messages:
            self.view.replay(engine.messages)
            usage = engine.total_usage
            self.view.set_session_cost(
                engine.total_cost_usd,
                (
                    sum(
                        int(usage.get(key) or 0)
                        for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
                    ),
                    int(usage.get("output_tokens") or 0),
                ),
            )
            self._remember_session()

    async def _pick_session(self) -> None:
        setup = self.setup
        sessions = await asyncio.to_thread(setup.list_sessions)
        if sessions:
            setup.options.resume = await questions.pick_session(
                self.console, sessions, input=self.input, output=self.output
            )
        else:
            self.view.notice("No earlier session in this folder; starting a new one.")
        setup.pick_resume = False

    async def _close(self, reason: str) -> None:
        engine, self.engine = self.engine, None
        if engine is None:
            return
        with contextlib.suppress(Exception):
            await asyncio.wait_for(engine.aclose(reason), CLOSE_TIMEOUT_S)
        for task in list(self._background):
            task.cancel()

    def _remember_session(self) -> None:
        session_id = self.engine.session_id
        if self.setup.options.session is not None and session_id not in self.resume_ids:
            self.resume_ids.append(session_id)

    async def pick_and_switch(self) -> None:
        """``/resume``: pick another session of this folder from a menu and continue it here."""
        current = self.engine.session_id if self.engine is not None else None
        sessions = [info for info in await asyncio.to_thread(self.setup.list_sessions) if info.session_id != current]
        if not sessions:
            self.view.notice("No other session in this folder to resume.")
            return
        choice = await questions.pick_session(self.console, sessions, input=self.input, output=self.output)
        if choice and not await self.new_session(choice):
            self.view.error("Could not resume that session; start again with agentcli --plain.")

    async def new_session(self, resume: str | None = None) -> bool:
        """``/clear`` (or ``/resume`` with ``resume``): end this session (it stays resumable) and go on in a new,
        empty one or the chosen one; False if none could be started (the REPL then ends)."""
        old = self.engine
        await self._close("clear" if resume is None else "other")
        options = self.setup.options
        if options.session is not None:
            options.session.close()
        options.session = None
        options.resume = resume
        options.continue_session = False
        options.fork_session = False
        options.session_id = None
        options.notices = []
        try:
            self.engine = await asyncio.to_thread(self.setup.build)
        except StartupError as exc:
            self.view.error(f"Could not start a new session: {exc}")
            return False
        note = f" (the last one: agentcli --resume {old.session_id})" if old.session_id in self.resume_ids else ""
        self._shell_context.clear()  # `!` output waiting for the next prompt belonged to the old conversation
        self.view.reset()
        if resume is None:
            self.engine.config.session_source = "clear"
            self.view.notice(f"Started a new session{note}")
        else:
            self.view.notice(f"Resumed session {self.engine.session_id}{note}")
            self._show_resumed()
        return True

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- prompts ----------------------------------------------------------------------------------------------------

    async def _prompt_loop(self) -> None:
        from agentcli.ui.repl.commands import run_command

        while self.ended_by is None:
            text = await self.read_prompt()
            if text is None:
                return
            if not text.strip():
                continue
            if text.startswith("/") and not text.startswith("//"):
                if not await run_command(self, text.strip()):
                    return
                continue
            typed = text.strip()
            if typed.startswith("!") and len(typed) > 1:  # a lone "!" is a prompt, as in the full-screen interface
                await self.run_shell(typed[1:].strip())
                continue
            await self.run_turn(text)

    async def read_prompt(self) -> str | None:
        """The next prompt (keys typed while the agent worked come first); None when the user leaves."""
        if self._typeahead:
            store_typeahead(self.input, self._typeahead)
            self._typeahead = []
        self.prompting = True
        try:
            return await self.session.prompt_async()
        except KeyboardInterrupt:
            self.view.notice("(ctrl+d or /exit to leave)")
            return ""
        except EOFError:
            return None
        finally:
            self.prompting = False

    # -- a turn -----------------------------------------------------------------------------------------------------

    def interrupt(self) -> None:
        """Esc or ctrl+c while the agent works: stop the turn (running tools get an "interrupted" result), or the
        ``!`` command."""
        if self._shell is not None:
            self._shell.cancel()
        elif self.busy and self.engine is not None:
            self.engine.interrupt()

    @contextlib.asynccontextmanager
    async def _working(self) -> AsyncIterator[None]:
        """While a turn or a ``!`` command runs: the live region, Esc and ctrl+c interrupt, other keys wait for the
        next prompt."""
        self.busy = True
        self.view.begin_turn()
        watcher = KeyWatcher(self.input, self.interrupt)
        self._watcher = watcher if watcher.start() else None
        loop = asyncio.get_running_loop()
        if self.handle_signals:
            loop.add_signal_handler(signal.SIGINT, self.interrupt)
        ticker = asyncio.create_task(self._tick())
        try:
            yield
        finally:
            if self.handle_signals:
                loop.remove_signal_handler(signal.SIGINT)
            ticker.cancel()
            if self._watcher is not None:
                self._watcher.stop()
                self._typeahead += self._watcher.typeahead
            self._watcher = None
            self.view.end_turn()
            self.busy = False

    async def run_turn(self, prompt: str) -> None:
        """Send one prompt (after what the user's ``!`` commands printed) and print what happens until its
        result."""
        if self._shell_context:
            prompt = with_shell_input(self._shell_context, prompt)
            self._shell_context.clear()
        self._remember_session()
        async with self._working():
            submission = Submission(self.engine, prompt)
            try:
                await submission.read(self.view.handle, self._unexpected, gate=self._output_free)
            finally:
                await submission.stop(CLOSE_TIMEOUT_S)

    async def run_shell(self, command: str) -> None:
        """``!cmd``: run ``command`` in the project with its output shown; what it printed goes to the model with
        the next prompt. Esc or ctrl+c stops it and the prompt comes back."""
        sandbox, env = session_shell(self.engine)
        async with self._working():
            task = self._shell = asyncio.ensure_future(run_shell_command(command, self.cwd, self.view, sandbox, env))
            try:
                await asyncio.wait({task})
            finally:
                self._shell = None
                if not task.done():  # the REPL itself is being stopped
                    task.cancel()
                    await asyncio.wait({task})
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self.view.error(f"Could not run the command: {error}")
            return
        self._shell_context.append(task.result())

    def _unexpected(self, error: BaseException) -> None:
        self.view.error(f"Unexpected error: {type(error).__name__}: {error}")

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(FRAME_S)
            if self._output_free.is_set():
                self.view.tick()

    async def ask_permission(self, request: PermissionRequest) -> PermissionAnswer:
        """The engine's question about a tool call, asked inline while the turn's output waits."""
        self._output_free.clear()
        self.view.pause()
        self.view.tool_header(request.tool_use_id, request.tool_name, request.tool_input)
        if self.engine is not None:
            self._spawn(
                self.engine.notify(f"agentcli needs your permission to use {request.tool_name}", "Permission needed")
            )
        interrupted = False
        try:
            with self._watcher.suspended() if self._watcher is not None else contextlib.nullcontext():
                answer = await questions.ask_permission(
                    self.console, request, cwd=self.cwd, input=self.input, output=self.output
                )
        except KeyboardInterrupt:
            answer, interrupted = PermissionAnswer("deny", ""), True
        finally:
            self.view.resume()
            self._output_free.set()
        if interrupted:
            self.interrupt()
        return answer


def run_repl(args: Any) -> int:
    """``agentcli --plain``: run the REPL for parsed command-line ``args``; returns the exit status."""
    problem = credentials_problem(bool(args.demo))
    if problem is not None:
        print(f"agentcli: {problem}", file=sys.stderr)
        return EXIT_USAGE
    from agentcli.ui.history import default_history_path

    cwd = Path.cwd()
    setup = SessionSetup(cwd, session_values(args), demo=bool(args.demo), pick_resume=args.resume == "")
    repl = Repl(
        setup,
        history=PromptHistory(default_history_path(), cwd),
        handle_signals=True,
        first_prompt=getattr(args, "prompt", None),
    )
    try:
        code = asyncio.run(repl.run())
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    finally:
        setup.close()
    exit_epilogue(setup, None)
    # Interpreter teardown with the SDK loaded costs ~0.3 s; everything is flushed and closed by now.
    os._exit(code)
