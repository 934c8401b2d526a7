"""The one guard every input file passes through: settings, themes, histories, memory files, server configs.

A file that cannot be used (not a regular file, too large, bytes that are not UTF-8, JSON or TOML that does not
parse, nesting deeper than any real file needs) becomes an :class:`InputFileError` naming the file and, where
known, the line; the caller reports it and goes on without that file. Nothing here raises anything else for bad
content, so a damaged file never ends the program with a traceback.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

MAX_INPUT_BYTES = 4 * 1024 * 1024
"""Far above any real settings, theme or memory file; a larger one is a mistake (or a hostile file)."""
MAX_DEPTH = 64
"""Nesting deeper than this is refused: no real configuration needs it, and deep recursion ends in a crash."""


class InputFileError(ValueError):
    """An input file that cannot be used; ``str()`` is ``path:line:column: what is wrong`` (as compilers say it)."""

    def __init__(self, path: str | Path, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.path = str(path)
        self.line = line
        self.column = column
        self.message = message

    def __str__(self) -> str:
        where = self.path
        if self.line:
            where += f":{self.line}" + (f":{self.column}" if self.column else "")
        return f"{where}: {self.message}"


def read_input(path: Path, *, max_bytes: int = MAX_INPUT_BYTES) -> str | None:
    """The file's text (UTF-8, a BOM dropped), or None when it does not exist; :class:`InputFileError` when it
    cannot be read or is not text."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputFileError(path, f"cannot be read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputFileError(path, "is not a regular file")
    if info.st_size > max_bytes:
        raise InputFileError(path, f"is {info.st_size} bytes, more than the {max_bytes} allowed for this file")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputFileError(path, f"cannot be read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise InputFileError(path, f"is more than the {max_bytes} bytes allowed for this file")
    return decode_input(data, path)


def decode_input(data: bytes, path: str | Path) -> str:
    """UTF-8 text of ``data`` (a leading BOM dropped); the error names the line of the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputFileError(
            path, f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})", line
        ) from None


def parse_json(text: str, path: str | Path, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse JSON ``text`` from ``path``; :class:`InputFileError` with the line for anything wrong."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFileError(path, f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise InputFileError(path, f"nested too deeply (more than {max_depth} levels)") from None
    check_depth(value, path, max_depth)
    return value


def parse_toml(text: str, path: str | Path, *, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """Parse TOML ``text`` from ``path``; :class:`InputFileError` with the line for anything wrong."""
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        line = column = None
        if "(at line " in message:
            message, _, where = message.partition(" (at line ")
            number, _, rest = where.partition(", column ")
            line = int(number) if number.isdigit() else None
            column = int(rest.rstrip(")")) if rest.rstrip(")").isdigit() else None
        raise InputFileError(path, f"not valid TOML: {message}", line, column) from None
    except RecursionError:
        raise InputFileError(path, f"nested too deeply (more than {max_depth} levels)") from None
    check_depth(value, path, max_depth)
    return value


def load_json(path: Path, *, max_bytes: int = MAX_INPUT_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """A JSON file's value, or None when the file does not exist."""
    text = read_input(path, max_bytes=max_bytes)
    return None if text is None else parse_json(text, path, max_depth=max_depth)


def load_toml(path: Path, *, max_bytes: int = MAX_INPUT_BYTES, max_depth: int = MAX_DEPTH) -> dict[str, Any] | None:
    """A TOML file's table, or None when the file does not exist."""
    text = read_input(path, max_bytes=max_bytes)
    return None if text is None else parse_toml(text, path, max_depth=max_depth)


def check_depth(value: Any, path: str | Path, max_depth: int = MAX_DEPTH) -> None:
    """Refuse a parsed value nested deeper than ``max_depth`` (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > max_depth:
            raise InputFileError(path, f"nested too deeply (more than {max_depth} levels)")
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
