"""The seccomp filter a sandbox without network gets: no new unix sockets, no io_uring.

``--unshare-net`` cuts TCP and abstract unix sockets, but a socket file on disk (ssh's ControlMaster, gpg-agent,
a desktop session's bus under ``$HOME``) is reached through the file system, which the sandbox still shows. So
``socket(AF_UNIX, …)`` fails with EPERM, and so does ``io_uring_setup`` (io_uring can create sockets without the
``socket`` system call). ``socketpair`` stays allowed: a pair of connected sockets reaches nothing outside.

The program is classic BPF, written here record by record (``struct sock_filter``: u16 code, u8 jt, u8 jf,
u32 k), for the machine agentcli runs on; a call made with another architecture's numbers (32-bit x86 on
x86_64, the x32 ABI) is refused, so the checks cannot be sidestepped by switching ABI. bwrap reads the program
from a file descriptor (``--seccomp FD``); it lives in a sealed memfd, so nothing can change it once written.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import os
import platform
import socket
import struct
from dataclasses import dataclass

_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS: load the 32-bit word at offset k of struct seccomp_data
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K (unsigned)
_RET = 0x06  # BPF_RET | BPF_K

_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000

_NR = 0  # struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_ARCH = 4
_ARG0_LOW = 16  # little-endian: the low half of args[0], which is all the kernel reads of an int argument

_X32_BIT = 0x40000000


@dataclass(frozen=True, slots=True)
class Machine:
    """What the filter needs to know of an architecture: its audit id and the numbers of the calls it refuses."""

    audit_arch: int
    socket: int
    io_uring_setup: int
    x32_numbers: bool = False
    """x86_64: numbers with bit 30 set are x32 calls, refused."""


MACHINES = {
    "x86_64": Machine(audit_arch=0xC000003E, socket=41, io_uring_setup=425, x32_numbers=True),
    "aarch64": Machine(audit_arch=0xC00000B7, socket=198, io_uring_setup=425),
}
MACHINES["amd64"] = MACHINES["x86_64"]
MACHINES["arm64"] = MACHINES["aarch64"]


def _record(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: Machine) -> bytes:
    """The filter: foreign architecture or x32 → EPERM; io_uring_setup → EPERM; socket(AF_UNIX) → EPERM; else
    allowed. Jump offsets count records after the jump; every refusal jumps to the one EPERM at the end."""
    deny = _RET_ERRNO | errno.EPERM
    body: list[tuple[int, int, int | str, int | str]] = [
        (_LD_W_ABS, _ARCH, 0, 0),
        (_JEQ, machine.audit_arch, 1, 0),  # native: skip the next record
        (_RET, deny, 0, 0),
        (_LD_W_ABS, _NR, 0, 0),
    ]
    if machine.x32_numbers:
        body.append((_JGE, _X32_BIT, "deny", 0))
    body += [
        (_JEQ, machine.io_uring_setup, "deny", 0),
        (_JEQ, machine.socket, 0, "allow"),
        (_LD_W_ABS, _ARG0_LOW, 0, 0),
        (_JEQ, int(socket.AF_UNIX), "deny", 0),
    ]
    allow_at, deny_at = len(body), len(body) + 1

    def offset(target: int | str, index: int) -> int:
        match target:
            case "deny":
                return deny_at - index - 1
            case "allow":
                return allow_at - index - 1
            case int():
                return target
        raise ValueError(target)

    records = [_record(code, k, offset(jt, index), offset(jf, index)) for index, (code, k, jt, jf) in enumerate(body)]
    records += [_record(_RET, _RET_ALLOW), _record(_RET, deny)]
    return b"".join(records)


@functools.lru_cache(maxsize=1)
def filter_fd() -> int | None:
    """A sealed memfd holding this machine's program (made once per process), or None on an architecture the
    filter does not know. Open ``/proc/self/fd/N`` for a fresh descriptor that reads it from the start."""
    machine = MACHINES.get(platform.machine())
    if machine is None:
        return None
    fd = os.memfd_create("agentcli-seccomp", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.write(fd, program(machine))
    seals = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    return fd


def open_filter() -> int | None:
    """A new read-only descriptor of the program, for one sandbox to read (the caller closes it once started)."""
    fd = filter_fd()
    if fd is None:
        return None
    return os.open(f"/proc/self/fd/{fd}", os.O_RDONLY | os.O_CLOEXEC)


def filter_path() -> str | None:
    """Where another process (a shell that opens it for bwrap) finds the program: this process's memfd."""
    fd = filter_fd()
    return None if fd is None else f"/proc/{os.getpid()}/fd/{fd}"
