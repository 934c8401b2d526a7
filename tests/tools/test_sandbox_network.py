"""Network off means off: no TCP, no abstract unix sockets (a network namespace of its own) and no unix socket files
either (a seccomp filter refuses ``socket(AF_UNIX)`` and io_uring) — tried for real under bubblewrap. With the
network allowed, unix sockets work as they do outside."""

from __future__ import annotations

import errno
import os
import socket
import struct
from pathlib import Path

import pytest

from agentcli.tools.base import ToolEnv
from agentcli.tools.sandbox import Sandbox, SandboxConfig
from agentcli.tools.seccomp import MACHINES, filter_fd, program
from tests.tools.sandbox_fixtures import abstract_server, unix_server  # noqa: F401 (fixtures)
from tests.waiting import wait_until


def _connect(address: str) -> str:
    return f"python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect({address!r}); s.sendall(b'hi')\""


def _env(project: Path, **config: object) -> ToolEnv:
    return ToolEnv(project_dir=project, sandbox=Sandbox(SandboxConfig(**config), project))  # type: ignore[arg-type]


def _home_visible(project: Path, home: Path, **config: object) -> ToolEnv:
    """The tests' HOME lies under /tmp, which the sandbox replaces: listed as writable, it is visible inside, as
    a real HOME is (its ``.ssh`` stays read-only there: a protected path)."""
    return _env(project, writable=(home,), **config)


async def test_a_socket_file_under_home_is_out_of_reach(
    run_tool,
    project: Path,
    hermetic_home: Path,
    unix_server,  # noqa: F811
):
    path, accepted = unix_server
    command = f"test -S {path} && echo visible; {_connect(path)}"
    outcome = await run_tool("Bash", {"command": command}, tool_env=_home_visible(project, hermetic_home))
    assert outcome.text.startswith("visible"), "the socket file is there to see, so only the filter stops it"
    assert outcome.output.is_error and "Operation not permitted" in outcome.text
    assert accepted == []


async def test_with_the_network_allowed_unix_sockets_work(
    run_tool,
    project: Path,
    hermetic_home: Path,
    unix_server,  # noqa: F811
):
    path, accepted = unix_server
    env = _home_visible(project, hermetic_home, network=True)
    outcome = await run_tool("Bash", {"command": _connect(path)}, tool_env=env)
    assert outcome.ok, outcome.text
    assert wait_until(lambda: list(accepted), "the server to get the connection") == [b"hi"]


async def test_abstract_sockets_are_out_of_reach(run_tool, project: Path, abstract_server):  # noqa: F811
    name, accepted = abstract_server
    outcome = await run_tool("Bash", {"command": _connect("\0" + name)}, tool_env=_env(project))
    assert outcome.output.is_error and accepted == []
    allowed = await run_tool("Bash", {"command": _connect("\0" + name)}, tool_env=_env(project, network=True))
    assert allowed.ok and wait_until(lambda: list(accepted), "the abstract server to get the connection") == [b"hi"]


async def test_io_uring_cannot_be_set_up(run_tool, project: Path):
    script = (
        "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); p = ctypes.create_string_buffer(120); "
        "r = libc.syscall(425, 1, p); print('io_uring', r, os.strerror(ctypes.get_errno()))"
    )
    outcome = await run_tool("Bash", {"command": f'python3 -c "{script}"'}, tool_env=_env(project))
    assert "io_uring -1 Operation not permitted" in outcome.text, outcome.text


def _run(filter_bytes: bytes, nr: int, arch: int, arg0: int) -> int:
    """The program's verdict for one call: a small interpreter of the instructions it uses."""
    records = [struct.unpack("=HBBI", filter_bytes[i : i + 8]) for i in range(0, len(filter_bytes), 8)]
    data = struct.pack("=iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)
    accumulator, pc = 0, 0
    while True:
        code, jt, jf, k = records[pc]
        match code:
            case 0x20:
                accumulator = struct.unpack_from("=I", data, k)[0]
                pc += 1
            case 0x15:
                pc += 1 + (jt if accumulator == k else jf)
            case 0x35:
                pc += 1 + (jt if accumulator >= k else jf)
            case 0x06:
                return k
            case _:
                raise AssertionError(f"unexpected instruction {code:#x}")


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_filter_decides_each_case(machine: str):
    spec = MACHINES[machine]
    code = program(spec)
    allow, eperm = 0x7FFF0000, 0x00050000 | errno.EPERM
    native = spec.audit_arch
    assert _run(code, spec.socket, native, socket.AF_UNIX) == eperm
    assert _run(code, spec.socket, native, socket.AF_UNIX | (1 << 32)) == eperm, "only the low half is read"
    assert _run(code, spec.socket, native, socket.AF_INET) == allow
    assert _run(code, spec.io_uring_setup, native, 0) == eperm
    assert _run(code, 0, native, 0) == allow
    assert _run(code, spec.socket, 0x40000003, socket.AF_INET) == eperm, "another architecture's calls"
    if spec.x32_numbers:
        assert _run(code, 0x40000000 | spec.socket, native, socket.AF_UNIX) == eperm


def test_the_filter_is_sealed():
    """Nothing (another thread, a bug) can change the program once written: writes to the memfd are refused."""
    fd = filter_fd()
    assert fd is not None
    with pytest.raises(PermissionError):
        os.pwrite(fd, b"\0" * 8, 0)
