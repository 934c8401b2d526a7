"""The pure-Python search behind Grep when ripgrep is not installed, printing what ``rg`` would print."""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass
from pathlib import Path

from agentcli.tools.base import ToolFailure
from agentcli.tools.globs import glob_regex

MAX_COLUMNS = 500
LONG_LINE = " [... omitted end of long line]"
SKIP_DIRS = frozenset({".git", ".hg", ".svn"})
BINARY_SNIFF_BYTES = 8192
MAX_FILE_BYTES = 20 * 1024 * 1024

FILE_TYPES: dict[str, tuple[str, ...]] = {
    "py": ("*.py", "*.pyi"),
    "python": ("*.py", "*.pyi"),
    "js": ("*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"),
    "ts": ("*.ts", "*.tsx", "*.cts", "*.mts"),
    "rust": ("*.rs",),
    "go": ("*.go",),
    "java": ("*.java", "*.jsp"),
    "kotlin": ("*.kt", "*.kts"),
    "c": ("*.c", "*.h"),
    "cpp": ("*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.h", "*.inl"),
    "cs": ("*.cs",),
    "rb": ("*.rb", "*.gemspec", "Gemfile", "Rakefile"),
    "ruby": ("*.rb", "*.gemspec"),
    "php": ("*.php",),
    "swift": ("*.swift",),
    "scala": ("*.scala", "*.sbt"),
    "sh": ("*.sh", "*.bash", "*.zsh"),
    "md": ("*.md", "*.markdown", "*.mdx"),
    "markdown": ("*.md", "*.markdown", "*.mdx"),
    "json": ("*.json",),
    "yaml": ("*.yaml", "*.yml"),
    "toml": ("*.toml",),
    "html": ("*.html", "*.htm"),
    "css": ("*.css", "*.scss"),
    "sql": ("*.sql",),
    "txt": ("*.txt",),
    "xml": ("*.xml",),
    "lua": ("*.lua",),
    "dart": ("*.dart",),
}


@dataclass(frozen=True)
class GrepQuery:
    pattern: str
    root: Path
    mode: str = "files_with_matches"
    glob: str | None = None
    file_type: str | None = None
    before: int | None = None
    after: int | None = None
    line_numbers: bool = True
    ignore_case: bool = False
    multiline: bool = False


def _file_filter(query: GrepQuery) -> list[re.Pattern[str]]:
    filters = []
    if query.glob:
        filters.append(glob_regex(query.glob, anywhere="/" not in query.glob))
    if query.file_type:
        globs = FILE_TYPES.get(query.file_type)
        if globs is None:
            raise ToolFailure(f"unrecognized file type: {query.file_type}")
        filters.append(re.compile("|".join(f"(?:{glob_regex(g, anywhere=True).pattern})" for g in globs)))
    return filters


def _files(query: GrepQuery) -> list[Path]:
    if query.root.is_file():
        return [query.root]
    filters = _file_filter(query)
    out: list[Path] = []
    for folder, dirs, files in os.walk(query.root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        relative = os.path.relpath(folder, query.root)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        for name in sorted(files):
            if all(f.fullmatch(prefix + name) for f in filters):
                out.append(Path(folder) / name)
    return out


def _text(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return None
    return data.decode("utf-8", errors="replace")


def _clip(line: str) -> str:
    return line[:MAX_COLUMNS] + LONG_LINE if len(line) > MAX_COLUMNS else line


def _matching_lines(regex: re.Pattern[str], text: str, lines: list[str], multiline: bool) -> list[int]:
    """0-based indexes of the lines that hold (part of) a match."""
    if not multiline:
        return [index for index, line in enumerate(lines) if regex.search(line)]
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    found: set[int] = set()
    for match in regex.finditer(text):
        first = bisect.bisect_right(starts, match.start()) - 1
        last = bisect.bisect_right(starts, max(match.start(), match.end() - 1)) - 1
        found.update(range(first, min(last, len(lines) - 1) + 1))
    return sorted(found)


def _content(path: Path, lines: list[str], hits: list[int], query: GrepQuery) -> list[str]:
    before, after = query.before or 0, query.after or 0
    hit_set = set(hits)
    shown: list[int] = []
    for index in hits:
        for number in range(max(0, index - before), min(len(lines), index + after + 1)):
            if not shown or number > shown[-1]:
                shown.append(number)
    out: list[str] = []
    previous = None
    for number in shown:
        if previous is not None and number > previous + 1 and (before or after):
            out.append("--")
        sep = ":" if number in hit_set else "-"
        prefix = f"{path}{sep}{number + 1}{sep}" if query.line_numbers else f"{path}{sep}"
        out.append(prefix + _clip(lines[number]))
        previous = number
    return out


def python_grep(query: GrepQuery) -> list[str]:
    """The lines ``rg`` would print for ``query`` (file lists sorted newest first)."""
    flags = re.IGNORECASE if query.ignore_case else 0
    if query.multiline:
        flags |= re.DOTALL | re.MULTILINE
    try:
        regex = re.compile(query.pattern, flags)
    except re.error as exc:
        raise ToolFailure(f"Invalid regular expression {query.pattern!r}: {exc}") from None
    out: list[str] = []
    context_groups = 0
    for path in _files(query):
        text = _text(path)
        if text is None:
            continue
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        lines = [line.removesuffix("\r") for line in lines]
        hits = _matching_lines(regex, text, lines, query.multiline)
        if not hits:
            continue
        if query.mode == "files_with_matches":
            out.append(str(path))
        elif query.mode == "count":
            out.append(f"{path}:{len(hits)}")
        else:
            if context_groups and (query.before or query.after):
                out.append("--")
            out += _content(path, lines, hits, query)
            context_groups += 1
    if query.mode == "files_with_matches":
        out = sort_newest_first(out)
    return out


def sort_newest_first(paths: list[str]) -> list[str]:
    def key(path: str) -> tuple[float, str]:
        try:
            return (-os.stat(path).st_mtime, path)
        except OSError:
            return (0.0, path)

    return sorted(paths, key=key)
