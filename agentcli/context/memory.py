"""Memory files: the instructions users keep for the agent (``AGENTS.md``, and ``CLAUDE.md`` where present).

Read once per session, from ``<config>/AGENTS.md`` (the user's own), then every folder from the filesystem root
down to the project, so the most specific instructions come last. They go into the system prompt, which stays
byte-identical for the session (prompt caching).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentcli.config.paths import config_dir

NAMES = ("AGENTS.md", "CLAUDE.md")
MAX_CHARS_PER_FILE = 40_000


@dataclass(frozen=True, slots=True)
class MemoryFile:
    path: Path
    text: str
    truncated: bool


def memory_files(project_dir: Path) -> list[MemoryFile]:
    """Every memory file that applies to ``project_dir``, outermost first; unreadable ones are skipped."""
    candidates = [config_dir() / "AGENTS.md"]
    resolved = project_dir.resolve()
    for folder in reversed([resolved, *resolved.parents]):
        candidates += [folder / name for name in NAMES]
    found: list[MemoryFile] = []
    seen: set[Path] = set()
    for path in candidates:
        try:
            if not path.is_file() or path.resolve() in seen:
                continue
            seen.add(path.resolve())
            with path.open("rb") as handle:  # bounded: a huge file costs no more than what is kept
                data = handle.read(MAX_CHARS_PER_FILE * 4 + 1)
        except OSError:
            continue
        text = data.decode("utf-8", errors="replace")  # a stray byte costs one character, not the instructions
        if text.strip():
            found.append(MemoryFile(path, text[:MAX_CHARS_PER_FILE], len(text) > MAX_CHARS_PER_FILE))
    return found


def memory_prompt(project_dir: Path) -> str | None:
    """The memory files as one system-prompt section, or None when there are none."""
    files = memory_files(project_dir)
    if not files:
        return None
    parts = [
        "Instructions from the user's memory files follow. They take precedence over the defaults above; "
        "later files are more specific than earlier ones."
    ]
    for item in files:
        note = " (cut: the file is longer)" if item.truncated else ""
        parts.append(f'<memory path="{item.path}"{note}>\n{item.text.strip()}\n</memory>')
    return "\n\n".join(parts)
