"""A loopback HTTP/1.1 server that keeps every request's exact bytes and answers with canned bytes.

The fake Messages API parses what it receives; the wire-parity tests need what was sent, byte for byte (head and
body), to hold two clients' requests side by side.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self


@dataclass(frozen=True)
class RawRequest:
    head: bytes
    body: bytes

    @property
    def request_line(self) -> bytes:
        return self.head.split(b"\r\n", 1)[0]

    @property
    def header_lines(self) -> list[bytes]:
        return self.head.split(b"\r\n")[1:]


@dataclass
class Reply:
    """What the server answers with: a status line's code and reason, headers, and a body (Content-Length)."""

    status: int = 200
    reason: str = "OK"
    headers: list[tuple[str, str]] = field(default_factory=lambda: [("content-type", "text/event-stream")])
    body: bytes = b""

    def encode(self) -> bytes:
        lines = [f"HTTP/1.1 {self.status} {self.reason}", *(f"{k}: {v}" for k, v in self.headers)]
        lines.append(f"content-length: {len(self.body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + self.body


class RawServer:
    """Serves :attr:`reply` to every request on 127.0.0.1 (keep-alive honoured) and appends to :attr:`requests`."""

    def __init__(self, reply: Reply | None = None) -> None:
        self.reply = reply or Reply()
        self.requests: list[RawRequest] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._connections: list[socket.socket] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept, name="raw-http", daemon=True)

    @property
    def port(self) -> int:
        return int(self._listener.getsockname()[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept(); close() alone does not
        self._listener.close()
        with self._lock:
            for connection in self._connections:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
                connection.close()
        self._thread.join(timeout=10)

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                self._connections.append(connection)
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        buffer = b""
        with contextlib.suppress(OSError):
            while True:
                while b"\r\n\r\n" not in buffer:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return
                    buffer += chunk
                head, _, buffer = buffer.partition(b"\r\n\r\n")
                length = _content_length(head)
                while len(buffer) < length:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return
                    buffer += chunk
                body, buffer = buffer[:length], buffer[length:]
                with self._lock:
                    self.requests.append(RawRequest(head, body))
                connection.sendall(self.reply.encode())


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value.strip())
    return 0
