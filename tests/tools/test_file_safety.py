"""Read, Edit and Write never lose or garble a file: encodings, BOMs and line endings kept byte for byte, writes
atomic (a full disk leaves the original whole), unencodable input refused before anything is touched, and Read
bounded by what it returns."""

from __future__ import annotations

import errno
import os
import socket
import tracemalloc
from pathlib import Path

import pytest

from agentcli.files import atomic
from agentcli.tools.base import parse_input
from tests.files.disk import fill
from tests.tools.conftest import tool_named

LATIN1 = "Café naïve — 25 °C, Straße\r\n".encode("cp1252") + b"second line \xe9\xe8\r\n"


# -- encodings ----------------------------------------------------------------------------------------------------


async def test_edit_of_a_latin1_file_changes_only_the_edited_bytes(run_tool, project: Path):
    target = project / "legacy.txt"
    target.write_bytes(LATIN1)
    read = await run_tool("Read", {"file_path": str(target)})
    assert read.text.startswith("1\tCafé naïve — 25 °C, Straße\n2\tsecond line éè")
    outcome = await run_tool("Edit", {"file_path": str(target), "old_string": "second line", "new_string": "zweite"})
    assert outcome.ok, outcome.failure
    assert target.read_bytes() == LATIN1.replace(b"second line", b"zweite")


async def test_edit_keeps_a_utf8_bom_and_crlf(run_tool, project: Path):
    target = project / "win.cs"
    target.write_bytes(b"\xef\xbb\xbfclass A {\r\n    int x;\r\n}\r\n")
    await run_tool("Read", {"file_path": str(target)})
    outcome = await run_tool(
        "Edit", {"file_path": str(target), "old_string": "int x;", "new_string": "int x;\n    int y;"}
    )
    assert outcome.ok, outcome.failure
    assert target.read_bytes() == b"\xef\xbb\xbfclass A {\r\n    int x;\r\n    int y;\r\n}\r\n"


async def test_edit_and_read_of_a_utf16_file(run_tool, project: Path):
    target = project / "notes.txt"
    target.write_bytes(b"\xff\xfe" + "héllo\r\nwörld\r\n".encode("utf-16-le"))
    read = await run_tool("Read", {"file_path": str(target)})
    assert read.text == "1\théllo\n2\twörld"
    assert (await run_tool("Edit", {"file_path": str(target), "old_string": "wörld", "new_string": "wälder"})).ok
    assert target.read_bytes() == b"\xff\xfe" + "héllo\r\nwälder\r\n".encode("utf-16-le")


async def test_edit_refuses_a_file_that_is_not_valid_in_its_encoding(run_tool, project: Path):
    target = project / "damaged.txt"
    damaged = "naïve ✓\n".encode() + b"broken \xff byte\n"
    target.write_bytes(damaged)
    await run_tool("Read", {"file_path": str(target)})
    outcome = await run_tool("Edit", {"file_path": str(target), "old_string": "naïve", "new_string": "naive"})
    assert outcome.failure is not None
    assert "not valid UTF-8: byte 0xff at line 2" in outcome.failure and "refuses" in outcome.failure
    assert target.read_bytes() == damaged


async def test_write_keeps_the_encoding_bom_and_line_endings_of_the_file_it_replaces(run_tool, project: Path):
    target = project / "win.txt"
    target.write_bytes(b"\xef\xbb\xbfold\r\n")
    await run_tool("Read", {"file_path": str(target)})
    assert (await run_tool("Write", {"file_path": str(target), "content": "new\nlines é\n"})).ok
    assert target.read_bytes() == b"\xef\xbb\xbfnew\r\nlines \xc3\xa9\r\n"
    legacy = project / "legacy.txt"
    legacy.write_bytes(LATIN1)
    await run_tool("Read", {"file_path": str(legacy)})
    assert (await run_tool("Write", {"file_path": str(legacy), "content": "Grüße\n"})).ok
    assert legacy.read_bytes() == b"Gr\xfc\xdfe\r\n"


async def test_write_refuses_what_the_files_encoding_cannot_hold(run_tool, project: Path):
    legacy = project / "legacy.txt"
    legacy.write_bytes(LATIN1)
    await run_tool("Read", {"file_path": str(legacy)})
    outcome = await run_tool("Write", {"file_path": str(legacy), "content": "ok\n漢字\n"})
    assert outcome.failure is not None and "'漢' (U+6F22) at line 2, which Windows-1252 cannot hold" in outcome.failure
    assert legacy.read_bytes() == LATIN1


@pytest.mark.parametrize("name", ["Write", "Edit"])
def test_a_lone_surrogate_in_tool_input_is_a_validation_error(name: str):
    field = "content" if name == "Write" else "new_string"
    raw = {"file_path": "/tmp/x", field: "half \ud83d of an emoji"}
    if name == "Edit":
        raw["old_string"] = "a"
    message = parse_input(tool_named(name), raw)
    assert message == (
        f"{name} failed due to the following issue:\nThe parameter `{field}` holds U+D83D at character 5, a lone "
        "surrogate that no file or command can hold; send valid Unicode text"
    )


# -- atomic writes ------------------------------------------------------------------------------------------------


async def test_a_full_disk_leaves_a_2000_line_file_whole(run_tool, small_disk: Path):
    target = small_disk / "big.py"
    original = b"".join(b"value_%d = %d\n" % (n, n) for n in range(2000))
    target.write_bytes(original)
    await run_tool("Read", {"file_path": str(target)})
    fill(small_disk)
    outcome = await run_tool("Write", {"file_path": str(target), "content": original.decode() + "more = 1\n" * 500})
    assert outcome.failure == f"Could not write {target}: the disk is full. The file was left as it was."
    assert target.read_bytes() == original
    edit = await run_tool(
        "Edit", {"file_path": str(target), "old_string": "value_0 = 0", "new_string": "v = 0\n" * 9000}
    )
    assert edit.failure is not None and "the disk is full" in edit.failure
    assert target.read_bytes() == original


async def test_a_read_only_file_system_is_named(run_tool, project: Path, monkeypatch: pytest.MonkeyPatch):
    target = project / "README.md"
    before = target.read_bytes()
    await run_tool("Read", {"file_path": str(target)})

    real_open = os.open

    def read_only(path: str, flags: int, *args: object, **kwargs: object) -> int:
        """A read-only file system: opening to read works, opening to write or create does not."""
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(atomic.os, "open", read_only)
    outcome = await run_tool("Write", {"file_path": str(target), "content": "x"})
    assert outcome.failure == f"Could not write {target}: the file system is read-only. The file was left as it was."
    assert target.read_bytes() == before


async def test_write_goes_through_a_symlink_and_keeps_the_mode(run_tool, project: Path):
    real = project / "real.sh"
    real.write_bytes(b"#!/bin/sh\necho old\n")
    real.chmod(0o755)
    link = project / "link.sh"
    link.symlink_to(real)
    await run_tool("Read", {"file_path": str(link)})
    assert (await run_tool("Write", {"file_path": str(link), "content": "#!/bin/sh\necho new\n"})).ok
    assert link.is_symlink() and real.read_bytes() == b"#!/bin/sh\necho new\n"
    assert real.stat().st_mode & 0o777 == 0o755


# -- bounded reads ------------------------------------------------------------------------------------------------


async def test_read_refuses_a_fifo_a_device_and_a_socket(run_tool, project: Path, tmp_path: Path):
    fifo = project / "pipe"
    os.mkfifo(fifo)  # nobody writes to it: opening it for reading the usual way would block forever
    assert "is a named pipe (FIFO), not a regular file" in (await run_tool("Read", {"file_path": str(fifo)})).failure
    assert "is a device, not a regular file" in (await run_tool("Read", {"file_path": "/dev/zero"})).failure
    listener = socket.socket(socket.AF_UNIX)
    sock_path = tmp_path / "s.sock"
    listener.bind(str(sock_path))
    try:
        assert "is a socket" in (await run_tool("Read", {"file_path": str(sock_path)})).failure
    finally:
        listener.close()


async def test_read_with_a_limit_does_not_load_the_file(run_tool, project: Path):
    big = project / "big.log"
    line = b"x" * 99 + b"\n"
    with big.open("wb") as handle:
        for _ in range(64):
            handle.write(line * 10_000)  # 64 MB
    tracemalloc.start()
    try:
        outcome = await run_tool("Read", {"file_path": str(big), "limit": 5})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert outcome.text.splitlines()[:5] == [f"{n}\t{'x' * 99}" for n in range(1, 6)]
    assert "Showing lines 1-5." in outcome.text
    assert peak < 2 * 1024 * 1024


async def test_read_cuts_a_huge_line_while_reading_it(run_tool, project: Path):
    huge = project / "minified.js"
    huge.write_bytes(b"a" * 30_000_000 + b"\nshort\n")
    tracemalloc.start()
    try:
        outcome = await run_tool("Read", {"file_path": str(huge)})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert outcome.text == "1\t" + "a" * 2000 + "… [line truncated]\n2\tshort"
    assert peak < 2 * 1024 * 1024


async def test_read_stops_at_the_output_cap_and_says_how_to_go_on(run_tool, project: Path):
    target = project / "wide.txt"
    target.write_text(("y" * 1500 + "\n") * 400)
    outcome = await run_tool("Read", {"file_path": str(target)})
    shown = [line for line in outcome.text.splitlines() if "\t" in line]
    assert 100 < len(shown) < 400
    assert f"Showing lines 1-{len(shown)} of 400 (the output reached its cap" in outcome.text
    rest = await run_tool("Read", {"file_path": str(target), "offset": len(shown) + 1, "limit": 3})
    assert rest.text.splitlines()[0] == f"{len(shown) + 1}\t" + "y" * 1500


# -- end to end: the model's calls through the real SDK and the fake API ------------------------------------------


async def test_the_issue_examples_end_to_end(fake_api, make_engine, project: Path):
    legacy = project / "legacy.txt"
    legacy.write_bytes(LATIN1)
    notes = project / "notes.md"
    notes.write_bytes(b"keep me\n")
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {"type": "tool_use", "id": "toolu_r1", "name": "Read", "input": {"file_path": str(legacy)}},
                        {"type": "tool_use", "id": "toolu_r2", "name": "Read", "input": {"file_path": str(notes)}},
                    ]
                },
                {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_e1",
                            "name": "Edit",
                            "input": {"file_path": str(legacy), "old_string": "Straße", "new_string": "Gasse"},
                        },
                        {
                            "type": "tool_use",
                            "id": "toolu_w1",
                            "name": "Write",
                            "input": {"file_path": str(notes), "content": "lost \ud800 half"},
                            "ensure_ascii": True,
                        },
                    ]
                },
                {"content": [{"type": "text", "text": "Done."}]},
            ]
        }
    )
    engine = make_engine(server, permission_mode="acceptEdits")
    messages = [message async for message in engine.submit_message("fix the files")]
    assert messages[-1]["subtype"] == "success", messages[-1]
    assert legacy.read_bytes() == LATIN1.replace("Straße".encode("cp1252"), b"Gasse")
    assert notes.read_bytes() == b"keep me\n"
    results = server.requests[2].body["messages"][-1]["content"]
    assert [block.get("is_error", False) for block in results] == [False, True]
    assert "lone surrogate" in results[1]["content"]
