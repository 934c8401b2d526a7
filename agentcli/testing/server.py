"""A local stand-in for the Anthropic Messages API that plays back a scenario, validates every request like
production does, and can misbehave on cue (HTTP errors, dropped or stalled streams, in-stream errors).

It runs in its own threads, so it serves sync clients, async clients on any event loop and subprocesses alike.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import selectors
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

from agentcli.testing import wire
from agentcli.testing.errors import (
    default_error_message,
    error_body,
    error_type_for_status,
    should_retry_header,
    status_for_error_type,
)
from agentcli.testing.estimate import estimate_input_tokens, estimate_output_tokens, too_long_message
from agentcli.testing.expectations import check_expectations, last_user_text, matches
from agentcli.testing.prompt_cache import PromptCache
from agentcli.testing.record import RecordedRequest, RequestLog
from agentcli.testing.scenario import (
    DEFAULT_MODEL,
    DropFault,
    HttpFault,
    PromptTooLongFault,
    Rendezvous,
    Scenario,
    SseErrorFault,
    StallFault,
    TextSpec,
    Turn,
    load_scenario,
)
from agentcli.testing.sse import encode_event, error_event, render_message, stream_frames, usage_for
from agentcli.testing.validate import validate_request

MESSAGES_PATH = "/v1/messages"
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"
_CONNECTION_ERRORS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.owner._track(self.connection, add=True)

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        self.server.owner._track(self.connection, add=False)

    def _dispatch(self) -> None:
        try:
            self.server.owner._handle(self)
        except _CONNECTION_ERRORS:
            self.close_connection = True

    do_POST = do_GET = do_PUT = do_DELETE = do_PATCH = _dispatch

    def log_message(self, format: str, *args: Any) -> None:
        """Silence per-request logging; the request list and JSON log are the record."""


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, owner: FakeAnthropicServer, address: tuple[str, int]) -> None:
        self.owner = owner
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients hanging up mid-response is routine here; anything else is already reported as a 500."""


class FakeAnthropicServer:
    """Serves `scenario` on 127.0.0.1; `start()`/`stop()` or use it as a context manager."""

    def __init__(
        self,
        scenario: Scenario | dict[str, Any] | str | os.PathLike[str],
        log_path: str | os.PathLike[str] | None = None,
        *,
        port: int = 0,
    ) -> None:
        self.scenario: Scenario = load_scenario(scenario)
        self.requests: list[RecordedRequest] = []
        self.incomplete_requests = 0
        """Connections that closed before their request body was complete (a client killed mid-send)."""
        self._log = RequestLog(Path(log_path)) if log_path is not None else None
        self._requested_port = port
        self._lock = threading.Lock()
        self._next_turn = 0
        self._served: set[int] = set()
        self._rendezvous = threading.Condition(self._lock)
        self._waiting: dict[str, int] = {}
        self._request_ids = itertools.count(1)
        self._message_ids = itertools.count(1)
        self._stopping = threading.Event()
        self._released = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._wake: tuple[socket.socket, socket.socket] | None = None
        self._port: int | None = None
        self._prompt_cache = PromptCache() if self.scenario.prompt_cache else None

    # lifecycle

    def start(self) -> Self:
        """Bind a free port (unless one was given) and serve from a background thread."""
        if self._httpd is not None:
            return self
        if self._stopping.is_set():
            self._released.clear()  # a restarted server holds its streams again
        self._stopping.clear()
        self._httpd = _HTTPServer(self, ("127.0.0.1", self._requested_port))
        self._port = int(self._httpd.server_address[1])
        self._wake = socket.socketpair()
        self._thread = threading.Thread(
            target=self._serve, args=(self._httpd, self._wake[0]), name="fake-anthropic", daemon=True
        )
        self._thread.start()
        return self

    def _serve(self, httpd: _HTTPServer, wake: socket.socket) -> None:
        """Accept loop that a wake-up byte ends at once, so stopping never waits on a poll interval."""
        with selectors.DefaultSelector() as selector:
            selector.register(httpd, selectors.EVENT_READ)
            selector.register(wake, selectors.EVENT_READ)
            while not self._stopping.is_set():
                for key, _ in selector.select():
                    if key.fileobj is httpd and not self._stopping.is_set():
                        httpd._handle_request_noblock()

    def stop(self) -> None:
        """Stop serving and cut every open connection, including streams that are mid-delay or stalled."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        self._released.set()
        with self._rendezvous:
            self._rendezvous.notify_all()
        wake, self._wake = self._wake, None
        if wake is not None:
            with contextlib.suppress(OSError):
                wake[1].send(b"x")
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            connections = list(self._connections)
        for sock in connections:
            wire.close_abruptly(sock)
        httpd.server_close()
        for sock in wake or ():
            sock.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port (still readable after `stop()`, for messages about a finished run)."""
        if self._port is None:
            raise RuntimeError("server has not been started")
        return self._port

    @property
    def base_url(self) -> str:
        """What to pass as `base_url` to the SDK client."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def turns_consumed(self) -> int:
        """How many scripted turns have been handed out so far."""
        with self._lock:
            return len(self._served)

    def assert_all_valid(self) -> None:
        """Fail with every violation seen, so one assertion at the end of a test covers the whole exchange."""
        bad = [r for r in list(self.requests) if r.violations]
        if bad:
            lines = [f"{len(bad)} of {len(self.requests)} request(s) had violations:"]
            for n, record in enumerate(self.requests):
                if record.violations:
                    lines.append(f"  request #{n} {record.method} {record.path} (turn {record.turn_index}):")
                    lines += [f"    - {v}" for v in record.violations]
            raise AssertionError("\n".join(lines))

    # request handling

    def _track(self, sock: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._connections.add(sock)
            else:
                self._connections.discard(sock)
        if add and self._stopping.is_set():
            wire.close_abruptly(sock)

    def _admit(self, record: RecordedRequest) -> None:
        """List the request as soon as its verdict is known, before any scripted delay, so tests can watch it."""
        with self._lock:
            self.requests.append(record)

    def _finish(self, record: RecordedRequest, status: int) -> None:
        """Note the outcome just before it goes out; the log line is written now, with the final status."""
        record.status = status
        if self._log is not None:
            self._log.write(record)

    def _handle(self, handler: _Handler) -> None:
        received = time.monotonic()
        request_id = f"req_fake_{next(self._request_ids)}"
        try:
            raw = wire.read_body(handler.rfile, handler.headers)
        except wire.IncompleteBody:
            with self._lock:
                self.incomplete_requests += 1
            handler.close_connection = True
            return
        url = urlsplit(handler.path)
        body, parse_error = _parse_json(raw)
        record = RecordedRequest(
            path=url.path,
            headers={k.lower(): v for k, v in handler.headers.items()},
            body=body,
            time=received,
            method=handler.command,
            query=url.query,
            request_id=request_id,
        )
        try:
            if handler.command == "POST" and url.path.rstrip("/") == MESSAGES_PATH:
                self._messages(handler, record, parse_error)
            elif handler.command == "POST" and url.path.rstrip("/") == COUNT_TOKENS_PATH:
                self._count_tokens(handler, record, parse_error)
            else:
                record.violations.append(f"no such endpoint: {handler.command} {url.path}")
                self._admit(record)
                self._finish(record, 404)
                self._send_error(handler, 404, "not_found_error", f"Not found: {url.path}", request_id)
        except _CONNECTION_ERRORS:
            raise
        except Exception as exc:
            record.violations.append(f"fake server failed: {exc!r}")
            with self._lock:
                admitted = any(r is record for r in self.requests)
            if not admitted:
                self._admit(record)
            if record.status is None:
                self._finish(record, 500)
                self._send_error(handler, 500, "api_error", f"fake server failed: {exc!r}", request_id)
            else:
                handler.close_connection = True
                wire.close_abruptly(handler.connection)

    def _send(self, handler: _Handler, data: bytes) -> None:
        handler.wfile.write(data)

    def _send_error(
        self,
        handler: _Handler,
        status: int,
        error_type: str,
        message: str,
        request_id: str,
        headers: dict[str, str] | None = None,
    ) -> None:
        scripted = {name.lower(): value for name, value in (headers or {}).items()}
        scripted.setdefault("x-should-retry", should_retry_header(status))
        extra = [("request-id", request_id), *scripted.items()]
        self._send(handler, wire.json_response(status, error_body(error_type, message, request_id), extra))

    def _count_tokens(self, handler: _Handler, record: RecordedRequest, parse_error: str | None) -> None:
        record.violations += [parse_error] if parse_error else validate_request(record.body, count_tokens=True)
        self._admit(record)
        if record.violations:
            self._finish(record, 400)
            message = "; ".join(record.violations)
            self._send_error(handler, 400, "invalid_request_error", message, record.request_id)
            return
        self._finish(record, 200)
        payload = {"input_tokens": estimate_input_tokens(record.body or {})}
        self._send(handler, wire.json_response(200, payload, [("request-id", record.request_id)]))

    def _next(self, body: dict[str, Any]) -> tuple[Turn | None, int | None]:
        turns = self.scenario.turns
        with self._lock:
            for index, turn in enumerate(turns):
                if index not in self._served and matches(turn.when, body):
                    self._served.add(index)
                    self._next_turn = max(self._next_turn, index + 1)
                    return turn, index
        if self.scenario.on_exhausted == "repeat_last" and turns:
            return turns[-1], len(turns) - 1
        if self.scenario.on_exhausted == "echo":
            return Turn(
                content=[TextSpec(type="text", text=last_user_text(body, typed_only=True) or "(no text)")]
            ), None
        return None, None

    def _messages(self, handler: _Handler, record: RecordedRequest, parse_error: str | None) -> None:
        record.violations += [parse_error] if parse_error else validate_request(record.body)
        if record.violations:
            self._admit(record)
            self._finish(record, 400)
            message = "; ".join(record.violations)
            self._send_error(handler, 400, "invalid_request_error", message, record.request_id)
            return
        body: dict[str, Any] = record.body or {}
        too_long = too_long_message(body, self.scenario.context_window)
        if too_long is not None:
            self._admit(record)
            self._finish(record, 400)
            self._send_error(handler, 400, "invalid_request_error", too_long, record.request_id)
            return
        turn, record.turn_index = self._next(body)
        if turn is None:
            self._admit(record)
            self._finish(record, 500)
            self._send_error(handler, 500, "api_error", "scenario exhausted", record.request_id)
            return
        record.violations += check_expectations(turn.expect, body)
        self._admit(record)
        if turn.rendezvous is not None:
            self._meet(turn.rendezvous, record)
        delay = turn.first_byte_delay_ms / 1000
        if delay and not wire.stay_silent(handler.connection, delay, self._stopping):
            self._finish(record, 0)
            handler.close_connection = True
            wire.close_abruptly(handler.connection)
            return
        if self._fault(handler, record, turn, streaming=bool(body.get("stream"))):
            return
        model = body.get("model") or self.scenario.model or DEFAULT_MODEL
        message_id = turn.id or f"msg_fake_{next(self._message_ids)}"
        usage = {"input_tokens": estimate_input_tokens(body), "output_tokens": estimate_output_tokens(turn)}
        if self._prompt_cache is not None:
            usage |= self._prompt_cache.usage(body, usage["input_tokens"])
        if not body.get("stream"):
            self._finish(record, 200)
            message = render_message(turn, message_id=message_id, model=model, usage=_usage(turn, usage))
            self._send(handler, wire.json_response(200, message, [("request-id", record.request_id)]))
            return
        frames = stream_frames(turn, message_id=message_id, model=model, usage=_usage(turn, usage))
        self._finish(record, 200)
        self._stream(handler, record, turn, frames)

    def release(self) -> None:
        """Let every stream held at its ``hold_after_events`` go on (and any held later: it is one-way)."""
        self._released.set()

    def _held(self) -> bool:
        """Wait for :meth:`release`; False if the server stopped instead."""
        self._released.wait()
        return not self._stopping.is_set()

    def _meet(self, rendezvous: Rendezvous, record: RecordedRequest) -> None:
        """Wait until ``parties`` requests reached this rendezvous (they were in flight at the same time)."""
        with self._rendezvous:
            self._waiting[rendezvous.name] = self._waiting.get(rendezvous.name, 0) + 1
            self._rendezvous.notify_all()
            met = self._rendezvous.wait_for(
                lambda: self._waiting[rendezvous.name] >= rendezvous.parties or self._stopping.is_set(),
                timeout=rendezvous.timeout_s,
            )
        if not met:
            record.violations.append(
                f"rendezvous {rendezvous.name!r}: only {self._waiting[rendezvous.name]} of "
                f"{rendezvous.parties} requests arrived within {rendezvous.timeout_s:g} s"
            )

    def _fault(self, handler: _Handler, record: RecordedRequest, turn: Turn, *, streaming: bool) -> bool:
        """Answer a whole-response fault; mid-stream faults of a streamed request are left to `_stream`."""
        fault = turn.fault
        if isinstance(fault, HttpFault):
            error_type = fault.error_type or error_type_for_status(fault.status)
            message = fault.message or default_error_message(error_type)
            self._finish(record, fault.status)
            self._send_error(handler, fault.status, error_type, message, record.request_id, fault.headers)
            return True
        if isinstance(fault, PromptTooLongFault):
            message = f"prompt is too long: {fault.tokens} tokens > {fault.maximum} maximum"
            self._finish(record, 400)
            self._send_error(handler, 400, "invalid_request_error", message, record.request_id)
            return True
        if streaming:
            return False
        if isinstance(fault, SseErrorFault):
            status = status_for_error_type(fault.error_type)
            self._finish(record, status)
            self._send_error(handler, status, fault.error_type, fault.message, record.request_id)
            return True
        if isinstance(fault, DropFault | StallFault):
            self._finish(record, 0)
            if isinstance(fault, StallFault):
                wire.stay_silent(handler.connection, fault.seconds, self._stopping)
            handler.close_connection = True
            wire.close_abruptly(handler.connection)
            return True
        return False

    def _stream(self, handler: _Handler, record: RecordedRequest, turn: Turn, frames: list[bytes]) -> None:
        fault = turn.fault
        if isinstance(fault, DropFault | StallFault | SseErrorFault):
            frames = frames[: fault.after_events]
        if isinstance(fault, SseErrorFault):
            frames.append(encode_event(*error_event(fault.error_type, fault.message)))
        head = wire.response_head(
            200,
            [
                ("content-type", "text/event-stream; charset=utf-8"),
                ("transfer-encoding", "chunked"),
                ("cache-control", "no-cache"),
                ("request-id", record.request_id),
            ],
        )
        completes = not isinstance(fault, DropFault | StallFault)
        if turn.delay_ms <= 0 and turn.hold_after_events is None:
            self._send(handler, head + wire.chunked(frames) + (wire.LAST_CHUNK if completes else b""))
        else:
            self._send(handler, head)
            for n, frame in enumerate(frames):
                held = n == turn.hold_after_events and not self._held()
                if held or (n and turn.delay_ms and self._stopping.wait(turn.delay_ms / 1000)):
                    completes = False
                    break
                self._send(handler, wire.chunk(frame))
            else:
                if completes:
                    self._send(handler, wire.LAST_CHUNK)
        if isinstance(fault, StallFault):
            wire.stay_silent(handler.connection, fault.seconds, self._stopping)
        if not completes:
            handler.close_connection = True
            wire.close_abruptly(handler.connection)


def _usage(turn: Turn, estimates: dict[str, int]) -> dict[str, int]:
    return usage_for(turn, **estimates)


def _parse_json(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    if not raw:
        return None, "body: the request body is empty; a JSON object is required"
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return None, f"body: the request body is not valid JSON ({exc})"
    if not isinstance(value, dict):
        return None, "body: the request body must be a JSON object"
    return value, None
