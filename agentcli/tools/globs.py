"""Glob patterns as regular expressions: one compiler for Glob, Grep's ``glob`` filter and permission rules.

Semantics follow shell globs and .gitignore: ``*`` and ``?`` stay inside one path segment, ``**`` spans
segments, ``[...]`` is a character class and ``{a,b}`` alternatives are expanded.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from pathlib import PurePosixPath

GLOB_CHARS = frozenset("*?[{")


def expand_braces(pattern: str) -> list[str]:
    """``src/{a,b}/*.{ts,tsx}`` → four patterns; unbalanced braces are kept literally."""
    depth = 0
    start = -1
    for index, char in enumerate(pattern):
        if char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                options = _split_top_level(pattern[start + 1 : index])
                if len(options) < 2:
                    continue
                head, tail = pattern[:start], pattern[index + 1 :]
                return [expanded for option in options for expanded in expand_braces(head + option + tail)]
    return [pattern]


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current = ""
    for char in text:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += char == "{"
        depth -= char == "}" and depth > 0
        current += char
    parts.append(current)
    return parts


def _segment_regex(pattern: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", index + 2 if pattern[index + 1 : index + 2] in ("!", "^") else index + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[index + 1 : end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                index = end
        elif char == "\\" and index + 1 < len(pattern):
            index += 1
            out.append(re.escape(pattern[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def _single_regex(pattern: str) -> str:
    parts = pattern.split("/")
    out = ""
    for position, part in enumerate(parts):
        last = position == len(parts) - 1
        if part == "**":
            out += ".*" if last else "(?:[^/]+/)*"
        else:
            out += _segment_regex(part) + ("" if last else "/")
    return out


@functools.lru_cache(maxsize=512)
def glob_regex(pattern: str, *, anywhere: bool = False) -> re.Pattern[str]:
    """A regex matching relative POSIX paths; ``anywhere`` also lets the pattern match below any folder."""
    alternatives = [_single_regex(p.strip("/") if p != "/" else p) for p in expand_braces(pattern)]
    body = "|".join(f"(?:{alt})" for alt in alternatives)
    prefix = "(?:.*/)?" if anywhere else ""
    return re.compile(f"{prefix}(?:{body})", re.DOTALL)


def has_magic(text: str) -> bool:
    return any(char in GLOB_CHARS for char in text)


def may_climb(pattern: str) -> bool:
    """Whether a glob may name a parent folder: ``..`` itself, or a part such as ``.?``, ``.[.]`` or ``.*``, which
    bash before 5.2 (without ``globskipdots``) and dash expand to ``..``."""
    parts = pattern.split("/")
    return ".." in parts or any(
        has_magic(part) and part.startswith((".", "[", "\\")) and fnmatch.fnmatchcase("..", part) for part in parts
    )


def static_prefix(pattern: str) -> tuple[str, str]:
    """Split ``/abs/dir/**/*.py`` into the folder without wildcards and the rest (``/abs/dir``, ``**/*.py``)."""
    parts = pattern.split("/")
    for index, part in enumerate(parts):
        if has_magic(part):
            return "/".join(parts[:index]) or ("/" if pattern.startswith("/") else ""), "/".join(parts[index:])
    head = "/".join(parts[:-1]) or ("/" if pattern.startswith("/") and len(parts) > 1 else "")
    return head, parts[-1]


def gitignore_match(pattern: str, relative: str) -> bool:
    """Whether a .gitignore-style ``pattern`` matches the relative POSIX path or any folder above it.

    A pattern with no slash (other than a trailing one) matches at any depth; a trailing slash means the
    folder and everything in it; matching a folder matches everything below it, and ``folder/**`` (everything
    in a folder) also matches the folder itself, so searching the folder counts as reading what is in it.
    """
    core = pattern.rstrip("/")
    anywhere = "/" not in core
    if core.endswith("/**") and len(core) > 3:
        core = core[:-3]
    if not core:
        return False
    regex = glob_regex(core.lstrip("/"), anywhere=anywhere)
    path = PurePosixPath(relative)
    candidates = [str(parent) for parent in path.parents if str(parent) != "."]
    candidates.append(str(path))
    return any(regex.fullmatch(candidate) for candidate in candidates)
