"""What the permission policy reads out of a command: every reading deny rules should see, and the real paths a
word may name (braces expanded, globs matched, symlinks resolved)."""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path

from agentcli.tools.commands import deny_variants, inner_scripts
from agentcli.tools.globs import expand_braces, has_magic, may_climb, static_prefix
from agentcli.tools.shell import ParsedCommand, Word, parse_command

MAX_GLOB_MATCHES = 2_000


def real(path: Path) -> Path:
    """``path`` with symlinks resolved (as it is, where that fails)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def command_pieces(parsed: ParsedCommand, command: str) -> list[str]:
    """Every reading of the command a deny or ask rule should see."""
    pieces: list[str] = []
    for sub in parsed.commands:
        pieces += deny_variants(sub)
        for script in inner_scripts(sub):
            pieces += command_pieces(parse_command(script), script)
    if parsed.error is not None:
        pieces.append(command)
        pieces += [part.strip() for part in re.split(r"[;&|\n`()$]+", command) if part.strip()]
    return pieces


def word_places(word: Word, cwds: list[Path]) -> list[Path] | None:
    """Every real path ``word`` may name (braces expanded, globs matched), or None if that cannot be known."""
    if word.braces and re.search(r"\{[^}]*\.\.[^}]*\}", word.value):
        return None  # a sequence such as {/..0} produces characters nobody wrote
    values = expand_braces(word.value) if word.braces else [word.value]
    places: list[Path] = []
    for value in values:
        home = value.startswith("~")
        if home and value != "~" and not value.startswith("~/"):
            return None  # ~user/… is another user's home: not worth resolving to approve it
        bases = [Path(os.path.expanduser("~"))] if home else cwds
        if home:
            value = value[1:].lstrip("/") or "."
        for base in bases:
            if has_magic(value):
                if may_climb(value):
                    return None  # */../.. or .[.]/ climbs out wherever the glob lands
                matches = glob.glob(value, root_dir=base)
                if len(matches) > MAX_GLOB_MATCHES:
                    return None
                places += [real(base / match) for match in matches]
                value = static_prefix(value)[0] or "."
            places.append(real(Path(os.path.normpath(base / value))))
    return places


def read_words(parsed: ParsedCommand) -> list[list[Word]]:
    """Per simple command, the words that may name a file it reads: arguments, ``--opt=value`` values, redirects."""
    out: list[list[Word]] = []
    for sub in parsed.commands:
        words = [w for w in sub.argv[1:] if not w.value.startswith("-")]
        words += [
            Word(w.value.split("=", 1)[1], w.value.split("=", 1)[1], w.expands, w.globby, w.braces)
            for w in sub.argv[1:]
            if w.value.startswith("-") and "=" in w.value
        ]
        words += [r.target for r in sub.redirects if r.target is not None]
        out.append(words)
    return out
