"""Read: a file's lines, numbered like ``cat -n``, so the model can cite and edit them exactly.

The file is streamed: reading stops at the requested lines and at an output cap, long lines are cut while they
are read, so memory follows what is returned, not the file's size. Only regular files are read: a FIFO, a device
or a socket could block forever or never end.
"""

from __future__ import annotations

import asyncio
import io
import os
import stat as stat_module
from pathlib import Path
from typing import IO, Any

from pydantic import Field

from agentcli.files.images import MAX_IMAGE_BYTES, ImageTooLarge, image_block, sniff_image
from agentcli.files.text import decode, sniff_encoding
from agentcli.tools.base import FileSnapshot, Tool, ToolCall, ToolFailure, ToolInput, ToolOutput
from agentcli.tools.paths import resolve

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_OUTPUT_CHARS = 256 * 1024
"""What one Read returns at most; past it the model is told to page with offset and limit."""
SNIFF_BYTES = 64 * 1024
BINARY_SNIFF_BYTES = 8192
SNAPSHOT_BYTES = 1024 * 1024
"""Files up to this size are remembered whole, so a later touch that changed nothing does not force a new Read."""
COUNT_REST_BYTES = 16 * 1024 * 1024
"""Past the shown lines, files up to this size are scanned (not kept) to tell the model how many lines remain."""
_SKIP_CHUNK = 64 * 1024
_LINE_ENDS = ("\n", "\r")


class ReadInput(ToolInput):
    file_path: str = Field(description="The absolute path to the file to read")
    offset: int | None = Field(default=None, description="The line number to start reading from (1-based)")
    limit: int | None = Field(default=None, description="The number of lines to read")


class ReadTool(Tool):
    name = "Read"
    description = (
        "Reads a file from the local filesystem. The file_path parameter must be an absolute path. "
        f"By default it reads up to {DEFAULT_LIMIT} lines from the start of the file; use offset and limit for long "
        f"files. Lines longer than {MAX_LINE_CHARS} characters are cut. Results are numbered like `cat -n` "
        "(line number, tab, line). Images (PNG, JPEG, GIF, WebP) are returned as images you can see. Reading a "
        "directory or another binary file is an error; use Bash `ls` for directories."
    )
    input_model = ReadInput

    def is_read_only(self, tool_input: Any) -> bool:
        return True

    def target_path(self, tool_input: Any) -> str | None:
        return str(tool_input.file_path)

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        path = resolve(tool_input.file_path, call.env.project_dir)
        return await asyncio.to_thread(_read, path, tool_input, call)


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat_module.S_ISREG(mode):
        return None
    if stat_module.S_ISFIFO(mode):
        return "named pipe (FIFO)"
    if stat_module.S_ISSOCK(mode):
        return "socket"
    if stat_module.S_ISCHR(mode) or stat_module.S_ISBLK(mode):
        return "device"
    return "special file"


def _open_regular(path: Path) -> tuple[IO[bytes], os.stat_result]:
    try:
        before = os.stat(path)
    except FileNotFoundError:
        raise ToolFailure(f"File does not exist: {path}") from None
    except OSError as exc:
        raise ToolFailure(f"Could not read {path}: {exc.strerror or exc}") from None
    if stat_module.S_ISDIR(before.st_mode):
        raise ToolFailure(f"{path} is a directory, not a file. Use Bash with `ls` to list a directory.")
    kind = _kind(before.st_mode)
    if kind is None:
        try:  # O_NONBLOCK: should the path turn into a FIFO meanwhile, opening it must not wait for a writer
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            raise ToolFailure(f"Could not read {path}: {exc.strerror or exc}") from None
        st = os.fstat(fd)
        kind = _kind(st.st_mode)
        if kind is None:
            os.set_blocking(fd, True)
            return os.fdopen(fd, "rb"), st
        os.close(fd)
    raise ToolFailure(
        f"{path} is a {kind}, not a regular file. Read only reads files: reading a {kind} could wait forever or "
        "never end. Use Bash (for example `head -c 4096`) if you really need its data."
    )


def _read(path: Path, tool_input: ReadInput, call: ToolCall) -> ToolOutput:
    raw, st = _open_regular(path)
    with raw:
        head = raw.read(SNIFF_BYTES)
        if sniff_image(head[:16]) is not None:
            return _image(path, head + raw.read(MAX_IMAGE_BYTES + 1 - len(head)), st.st_size)
        encoding, bom = sniff_encoding(head)
        if not encoding.startswith(("utf-16", "utf-32")) and b"\x00" in head[:BINARY_SNIFF_BYTES]:
            raise ToolFailure(f"{path} looks like a binary file; Read only shows text.")
        raw.seek(len(bom))
        reader = io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline="")
        start = max(1, tool_input.offset or 1)
        limit = tool_input.limit if tool_input.limit and tool_input.limit > 0 else DEFAULT_LIMIT
        page = _Page(start, limit)
        page.collect(reader)
        if page.more and st.st_size <= COUNT_REST_BYTES and encoding in ("utf-8", "cp1252", "latin-1"):
            page.total = page.seen + _count_lines(raw, reader)
    content = None
    if page.total is not None and st.st_size <= SNAPSHOT_BYTES:
        with path.open("rb") as again:
            content = decode(again.read(SNAPSHOT_BYTES + 1)).text
    call.env.state.read_files[str(path)] = FileSnapshot(st.st_mtime_ns, st.st_size, content)
    return page.output(path)


def _image(path: Path, data: bytes, size: int) -> ToolOutput:
    """An image goes to the model as an image block, so it can look at it (as Claude Code's Read does)."""
    try:
        block = image_block(path, data)
    except ImageTooLarge as exc:
        raise ToolFailure(f"{exc}. Make a smaller copy (for example with Bash) and read that.") from None
    assert block is not None
    media_type = block["source"]["media_type"]
    return ToolOutput(
        [block], structured={"type": "image", "file": {"filePath": str(path), "type": media_type, "originalSize": size}}
    )


class _Page:
    """The lines one Read shows, collected as the file streams past."""

    def __init__(self, start: int, limit: int) -> None:
        self.start = start
        self.limit = limit
        self.out: list[str] = []
        self.chars = 0
        self.seen = 0
        self.more = False
        self.capped = False
        self.total: int | None = None

    def collect(self, reader: io.TextIOWrapper) -> None:
        while True:
            line = reader.readline(MAX_LINE_CHARS + 1)
            if not line:
                self.total = self.seen
                return
            if len(line) > MAX_LINE_CHARS and not line.endswith(_LINE_ENDS):
                _skip_rest_of_line(reader)
            self.seen += 1
            if self.seen < self.start:
                continue
            if len(self.out) >= self.limit or self.chars >= MAX_OUTPUT_CHARS:
                self.more = True
                self.capped = len(self.out) < self.limit
                return
            text = line.rstrip("\r\n")
            if len(text) > MAX_LINE_CHARS:
                text = text[:MAX_LINE_CHARS] + "… [line truncated]"
            entry = f"{self.seen}\t{text}"
            self.out.append(entry)
            self.chars += len(entry) + 1

    def output(self, path: Path) -> ToolOutput:
        if self.total == 0:
            return ToolOutput(
                "<system-reminder>The file exists but is empty.</system-reminder>",
                structured={
                    "type": "text",
                    "file": {"filePath": str(path), "numLines": 0, "startLine": 1, "totalLines": 0},
                },
            )
        if not self.out:
            raise ToolFailure(f"The file has {self.seen} lines; offset {self.start} is past the end.")
        end = self.start + len(self.out) - 1
        lines = list(self.out)
        if self.more:
            of = f" of {self.total}" if self.total is not None else ""
            why = f" (the output reached its cap of {MAX_OUTPUT_CHARS} characters)" if self.capped else ""
            lines.append(f"\n[Showing lines {self.start}-{end}{of}{why}. Use offset and limit to read more.]")
        file: dict[str, Any] = {"filePath": str(path), "numLines": len(self.out), "startLine": self.start}
        if self.total is not None:
            file["totalLines"] = self.total
        return ToolOutput("\n".join(lines), structured={"type": "text", "file": file})


def _skip_rest_of_line(reader: io.TextIOWrapper) -> None:
    while True:
        rest = reader.readline(_SKIP_CHUNK)
        if not rest or rest.endswith(_LINE_ENDS):
            return


def _count_lines(raw: IO[bytes], reader: io.TextIOWrapper) -> int:
    """Lines from the reader's position to the end, counted in raw chunks (nothing kept)."""
    position = reader.tell()
    reader.detach()
    raw.seek(position)
    count = 0
    last = b"\n"
    while chunk := raw.read(_SKIP_CHUNK * 16):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    return count + (last != b"\n")
