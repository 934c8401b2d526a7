"""For the sandbox tests: unix socket servers (a socket file under the test's HOME, where ssh's ControlMaster or
gpg-agent keep theirs, and an abstract name) that record what connects; and waiting for a placeholder to go."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.waiting import DEADLINE_S, wait_until


def serve_connections(server: socket.socket, accepted: list[bytes]) -> threading.Thread:
    """Accept connections on ``server`` in a thread, noting the first bytes of each."""

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                accepted.append(conn.recv(100))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def _stop(server: socket.socket, thread: threading.Thread) -> None:
    server.shutdown(socket.SHUT_RDWR)
    server.close()
    thread.join(timeout=DEADLINE_S)
    assert not thread.is_alive()


@pytest.fixture
def unix_server(hermetic_home: Path) -> Iterator[tuple[str, list[bytes]]]:
    folder = hermetic_home / ".ssh" / "sockets"
    folder.mkdir(parents=True)
    path = str(folder / "master")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen()
    accepted: list[bytes] = []
    thread = serve_connections(server, accepted)
    yield path, accepted
    _stop(server, thread)


@pytest.fixture
def abstract_server() -> Iterator[tuple[str, list[bytes]]]:
    """Yields the name (without the leading NUL)."""
    name = f"agentcli-test-{os.getpid()}-{threading.get_ident()}"
    server = socket.socket(socket.AF_UNIX)
    server.bind("\0" + name)
    server.listen()
    accepted: list[bytes] = []
    thread = serve_connections(server, accepted)
    yield name, accepted
    _stop(server, thread)


def gone(*paths: Path) -> None:
    """Wait until none of ``paths`` exists: a placeholder goes a moment after the last sandboxed command; anything
    a command had managed to create there would stay, and fail this."""
    for path in paths:
        wait_until(lambda path=path: not os.path.lexists(path), f"{path} to be gone")
