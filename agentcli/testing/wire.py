"""Raw HTTP/1.1 framing for the fake server: written by hand so faults can break the protocol on purpose."""

from __future__ import annotations

import contextlib
import json
import select
import socket
import threading
import time
from http import HTTPStatus
from typing import Any

CHUNK_SIZE = 64 * 1024
LAST_CHUNK = b"0\r\n\r\n"

_EXTRA_PHRASES = {529: "Overloaded"}


def reason_phrase(status: int) -> str:
    """Standard reason phrase, including the API's non-standard 529."""
    if status in _EXTRA_PHRASES:
        return _EXTRA_PHRASES[status]
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def response_head(status: int, headers: list[tuple[str, str]]) -> bytes:
    """Status line plus headers plus the blank line."""
    lines = [f"HTTP/1.1 {status} {reason_phrase(status)}"]
    lines += [f"{name}: {value}" for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def json_response(status: int, payload: Any, headers: list[tuple[str, str]]) -> bytes:
    """A complete fixed-length JSON response, ready for a single send."""
    body = json.dumps(payload, ensure_ascii=False).encode()
    head = response_head(status, [("content-type", "application/json"), ("content-length", str(len(body))), *headers])
    return head + body


def chunk(data: bytes) -> bytes:
    """One chunk of a chunked transfer-encoded body."""
    return b"%x\r\n%s\r\n" % (len(data), data)


def chunked(frames: list[bytes], size: int = CHUNK_SIZE) -> bytes:
    """All frames as a run of large chunks; cuts fall mid-event and mid-character, as TCP would allow."""
    data = b"".join(frames)
    return b"".join(chunk(data[i : i + size]) for i in range(0, len(data), size))


def close_abruptly(sock: socket.socket) -> None:
    """End the connection without finishing the response, as a crashed proxy or dropped link would."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def client_gone(sock: socket.socket) -> bool:
    """True once the peer has closed its side (a zero-byte peek on a readable socket)."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def stay_silent(sock: socket.socket, seconds: float, stop: threading.Event) -> bool:
    """Send nothing for `seconds`; True if the time ran out, False if the client hung up or the server stopped."""
    deadline = time.monotonic() + seconds
    while not stop.is_set():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return True
        if client_gone(sock):
            return False
        stop.wait(min(0.05, remaining))
    return False


class IncompleteBody(Exception):
    """The client went away before its request body was complete: it never sent a request at all."""


def read_body(rfile: Any, headers: Any) -> bytes:
    """The request body, whether sized by content-length or sent chunked; raises :class:`IncompleteBody`."""
    if "chunked" in (headers.get("transfer-encoding") or "").lower():
        parts: list[bytes] = []
        while True:
            line = rfile.readline()
            if not line:
                raise IncompleteBody("connection closed inside a chunked body")
            size = int(line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(parts)
            part = rfile.read(size)
            if len(part) < size:
                raise IncompleteBody("connection closed inside a chunk")
            parts.append(part)
            rfile.readline()
    length = int(headers.get("content-length") or 0)
    body = rfile.read(length) if length > 0 else b""
    if len(body) < length:
        raise IncompleteBody(f"connection closed after {len(body)} of {length} body bytes")
    return body
