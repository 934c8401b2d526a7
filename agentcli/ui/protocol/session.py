"""The protocol face: one process, many turns. User messages are queued and run one after another on the same
engine (so each sees the conversation so far); control requests are answered while a turn runs; when stdin ends,
the queued turns finish, their results are printed, and the exit status says whether the last one failed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import uuid
from typing import Any, BinaryIO, TextIO

from agentcli.api.client import Credentials
from agentcli.bootstrap import SessionOptions, build_engine
from agentcli.engine import QueryEngine
from agentcli.ui.frame_writer import paced, undelivered_note
from agentcli.ui.protocol import commands
from agentcli.ui.protocol.channel import MAX_LINE_BYTES, Channel, LineTooLong, read_lines
from agentcli.ui.protocol.frames import (
    BadFrame,
    ControlCancelFrame,
    ControlRequestFrame,
    ControlResponseFrame,
    Message,
    UserFrame,
    control_error,
    control_success,
    parse_frame,
)
from agentcli.ui.protocol.host import HostedMcp, HostPermissions
from agentcli.ui.protocol.orphans import answer_orphan, question_path, take_question
from agentcli.ui.protocol.refusals import Refusal, refusal_result
from agentcli.ui.signals import exit_status, install

EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


class ProtocolFace:
    def __init__(
        self,
        options: SessionOptions,
        credentials: Credentials,
        *,
        out: TextIO,
        err: TextIO,
        replay: bool = False,
        host_permissions: bool = False,
        verbose: bool = False,
        hook_events: bool = False,
    ) -> None:
        self.options = options
        self.credentials = credentials
        self.channel = Channel(out)
        self.err = err
        self.replay = replay
        self.verbose = verbose
        self.hook_events = hook_events
        self._hook_ids: dict[tuple[str, str], str] = {}
        self.queue: asyncio.Queue[UserFrame | Refusal | None] = asyncio.Queue()
        self._lines = 0
        self._engine: QueryEngine | None = None
        self._controls: dict[str, asyncio.Task[None]] = {}
        self._turn_running = False
        self.stopping = False
        self.last_failed = False
        self._orphan: dict[str, Any] | None = None
        options.hosted_mcp = HostedMcp(self.channel)
        if host_permissions:
            options.ask_permission = HostPermissions(
                self.channel, self._policy, self.interrupt, lambda: question_path(self.options.session)
            )
            session = options.session
            if session is not None and session.resumed_from == session.session_id:
                self._orphan = take_question(question_path(session))

    # -- the session -----------------------------------------------------------------------------------------

    @property
    def engine_started(self) -> bool:
        return self._engine is not None

    @property
    def engine_or_none(self) -> QueryEngine | None:
        return self._engine

    def engine(self) -> QueryEngine:
        """The session's engine, built on first use so that hooks registered by ``initialize`` are part of it."""
        if self._engine is None:
            self._engine = build_engine(self.options, self.credentials)
            from agentcli.ui.rewind import attach_checkpoints

            attach_checkpoints(self._engine, self.options.cwd)
            hooks = self._engine.config.hooks
            if self.hook_events and hooks is not None:
                hooks.runner.observer = self._hook_event
            for notice in self.options.notices:
                self.note(notice)
            self.options.notices.clear()
        return self._engine

    def _policy(self) -> Any:
        return self._engine.config.permission_policy if self._engine is not None else None

    async def reset(self) -> str:
        """``/clear``: end this session and start an empty one (new id, new transcript); returns the old id."""
        old = self.engine()
        await old.aclose("clear")
        if self.options.session is not None:
            self.options.session.close()
        self.options.session = None
        self.options.resume = self.options.session_id = None
        self.options.continue_session = self.options.fork_session = False
        self._engine = None
        return old.session_id

    def interrupt(self) -> None:
        if self._engine is not None and self._turn_running:
            self._engine.interrupt()

    def stop(self) -> None:
        """End the session on a signal: the running turn is interrupted and no queued one starts."""
        self.stopping = True
        self.channel.writer.release()
        self.interrupt()
        self.queue.put_nowait(None)

    def note(self, text: str) -> None:
        self.err.write(f"agentcli: {text}\n")
        self.err.flush()

    # -- output ----------------------------------------------------------------------------------------------

    def _hook_event(self, event: str, hook: Any, result: Any) -> None:
        """``--include-hook-events``: a ``hook_started`` and a ``hook_response`` line for every hook run."""
        key = (event, hook.command)
        frame: Message = {
            "type": "system",
            "hook_name": f"{event}:{hook.command}",
            "hook_event": event,
            "session_id": self._engine.session_id if self._engine else "",
            "uuid": str(uuid.uuid4()),
        }
        if result is None:
            self._hook_ids[key] = frame["hook_id"] = str(uuid.uuid4())
            self.emit({**frame, "subtype": "hook_started"})
            return
        failed = result.error is not None or result.timed_out
        self.emit(
            {
                **frame,
                "subtype": "hook_response",
                "hook_id": self._hook_ids.pop(key, str(uuid.uuid4())),
                "output": result.stdout,
                "stdout": result.stdout,
                "stderr": result.stderr,
                "exit_code": result.exit_code,
                "outcome": "error" if failed else "success",
            }
        )

    def emit(self, message: Message, frame: UserFrame | None = None) -> None:
        if message.get("type") == "result":
            self.last_failed = bool(message.get("is_error"))
            if frame is not None:
                if frame.origin is not None:
                    message["origin"] = frame.origin
                if frame.uuid is not None:
                    message["user_message_uuid"] = frame.uuid
                    message["user_message_uuids"] = [frame.uuid]
        self.channel.send(message)

    # -- input -----------------------------------------------------------------------------------------------

    def on_line(self, line: str | LineTooLong | None) -> None:
        """Every line gets its answer: a turn's result, a control response, or an error saying what was wrong."""
        match line:
            case None:
                self.channel.close()
                self.queue.put_nowait(None)
                return
            case LineTooLong(size=size):
                self._lines += 1
                why = f"it is {size:,} bytes long, over the {MAX_LINE_BYTES:,} a line may hold"
                self._refuse(BadFrame(why), self._lines)
                return
        self._lines += 1
        if not line.strip():
            return
        try:
            frame, repaired = parse_frame(line)
        except BadFrame as exc:
            self._refuse(exc, self._lines)
            return
        if repaired:
            self.note(f"line {self._lines} on stdin held lone UTF-16 surrogates; each was read as U+FFFD")
        self._dispatch(frame)

    def _dispatch(self, frame: object) -> None:
        match frame:
            case UserFrame():
                self.queue.put_nowait(frame)
            case ControlRequestFrame(request_id=request_id):
                task = asyncio.get_running_loop().create_task(self._control(frame))
                self._controls[request_id] = task
                task.add_done_callback(lambda _t, rid=request_id: self._controls.pop(rid, None))
            case ControlResponseFrame(response=reply):
                if not self.channel.resolve(reply):
                    self.note(f"ignored an answer to a request that is not waiting: {reply.request_id}")
            case ControlCancelFrame(request_id=request_id):
                task = self._controls.get(request_id)
                if task is not None:
                    task.cancel()

    def _refuse(self, problem: BadFrame, lineno: int) -> None:
        """A line that could not be read: whoever waits on it is told — a control request by its error response,
        the request agentcli made by failing it, anything else by an error result in its turn's place."""
        why = f"line {lineno} on stdin was not read: {problem}"
        self.note(why)
        match problem.kind, problem.request_id:
            case "control_request", str(request_id):
                self.channel.send(control_error(request_id, why))
            case "control_response", str(request_id):
                self.channel.fail(request_id, why)
            case "control_response" | "control_cancel_request" | "keep_alive", _:
                pass  # nobody waits for an answer to these
            case _:
                self.queue.put_nowait(Refusal(why))

    async def _control(self, frame: ControlRequestFrame) -> None:
        from agentcli.ui.protocol.control import handle_control

        try:
            response = await handle_control(self, frame.subtype, frame.request)
        except asyncio.CancelledError:
            return
        except Exception as exc:
            await self.channel.put(control_error(frame.request_id, str(exc) or type(exc).__name__))
            return
        await self.channel.put(control_success(frame.request_id, response))

    # -- turns -----------------------------------------------------------------------------------------------

    async def serve(self, stdin: BinaryIO) -> int:
        read_lines(stdin, asyncio.get_running_loop(), self.on_line)
        while (frame := await self.queue.get()) is not None and not self.stopping:
            if isinstance(frame, Refusal):
                self.emit(refusal_result(self.engine().session_id, frame))
            else:
                await self.turn(frame)
        for task in list(self._controls.values()):
            task.cancel()
        if self._engine is not None:
            await self._engine.aclose()
        return 1 if self.last_failed else 0

    async def turn(self, frame: UserFrame) -> None:
        if not await commands.run(self, frame):
            await self.run_turn(frame.message.content, frame)

    async def run_turn(self, content: str | list[dict[str, Any]], frame: UserFrame) -> None:
        engine = self.engine()
        mcp = engine.config.extensions.get("mcp")
        if mcp is not None:
            await mcp.hosted_ready()
        if self._orphan is not None:
            content = await self._answer_orphan(engine, content)
        message_id = frame.uuid or str(uuid.uuid4())
        if self.replay:
            self.emit(
                {
                    "type": "user",
                    "message": frame.message.model_dump(),
                    "session_id": engine.session_id,
                    "parent_tool_use_id": frame.parent_tool_use_id,
                    "uuid": message_id,
                    "isReplay": True,
                }
            )
        self._turn_running = True
        from agentcli.ui.rewind import begin_prompt

        begin_prompt(engine, content, message_id)  # rewind_files names the prompt by this id
        try:
            async with contextlib.aclosing(paced(engine.submit_message(content), self.channel.writer.room)) as messages:
                async for message in messages:
                    self.emit(message, frame)
        finally:
            self._turn_running = False

    async def _answer_orphan(self, engine: QueryEngine, content: str | list[dict[str, Any]]) -> Any:
        """The question the last run left open, asked once; what became of it goes to the model with ``content``."""
        record, self._orphan = self._orphan, None
        assert record is not None
        decision, note = await answer_orphan(engine, record)
        self.emit(
            {
                "type": "system",
                "subtype": "orphaned_permission",
                "tool_use_id": record.get("tool_use_id"),
                "tool_name": record.get("tool_name"),
                "decision": decision,
                "message": note,
                "session_id": engine.session_id,
                "uuid": str(uuid.uuid4()),
            }
        )
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        return [{"type": "text", "text": f"<system-reminder>\n{note}\n</system-reminder>"}, *blocks]


def run_protocol(
    options: SessionOptions,
    credentials: Credentials,
    *,
    replay: bool,
    host_permissions: bool,
    verbose: bool,
    hook_events: bool,
) -> int:
    """Serve stdin until it ends; the exit status is 1 when the last turn failed."""
    face = ProtocolFace(
        options,
        credentials,
        out=sys.stdout,
        err=sys.stderr,
        replay=replay,
        host_permissions=host_permissions,
        verbose=verbose,
        hook_events=hook_events,
    )

    async def main() -> int:
        ended_by: list[int] = []

        def on_signal(signum: int) -> None:
            ended_by.append(signum)
            if len(ended_by) > 1:
                with contextlib.suppress(OSError, ValueError):
                    sys.stdout.flush()
                os._exit(exit_status(signum))
            face.stop()

        remove_handlers = install(on_signal)
        try:
            code = await face.serve(sys.stdin.buffer)
            if dropped := await face.channel.writer.finish():
                face.note(undelivered_note(dropped))
        finally:
            remove_handlers()
        return exit_status(ended_by[0]) if ended_by else code

    try:
        return asyncio.run(main())
    except BrokenPipeError:
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
