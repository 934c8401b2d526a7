"""The files and folders ``Read(…)`` deny rules name, found on disk so that the sandbox can hide them.

The permission check refuses a command that names a denied file, but a parser can be fooled (``cat $(echo
.e)nv``); inside the sandbox the file is not there to read. Patterns are looked up once per set of rules (a
walk of at most :data:`WALK_BUDGET` entries per pattern, so ``//**/*.pem`` cannot stall a session); names
without wildcards are checked again before every command, since such a file may appear later.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agentcli.tools.globs import has_magic, static_prefix
from agentcli.tools.rules import RuleRoots, path_pattern_matches, pattern_base

WALK_BUDGET = 20_000
"""Entries one wildcard pattern may visit while its matches are looked for."""


@dataclass(frozen=True, slots=True)
class DeniedFiles:
    """What a set of Read deny patterns names: exact paths (which may not exist yet) and the wildcard matches
    (symlinks resolved when they were found: a mount must cover the real file)."""

    exact: tuple[str, ...]
    matched: tuple[str, ...]

    def present(self) -> list[tuple[str, bool]]:
        """The denied entries that exist now, as (real path, is a folder), without those inside another one."""
        found = {os.path.realpath(path) for path in self.exact if os.path.lexists(path)}
        found.update(path for path in self.matched if os.path.exists(path))
        kept: list[tuple[str, bool]] = []
        for path in sorted(found, key=len):
            if os.path.exists(path) and not any(path.startswith(folder + "/") for folder, is_dir in kept if is_dir):
                kept.append((path, os.path.isdir(path)))
        return kept


def find_denied(specifiers: Iterable[str], roots: RuleRoots) -> DeniedFiles:
    """Look up what ``specifiers`` (the ``…`` of ``Read(…)`` deny rules) name under ``roots``."""
    exact: list[str] = []
    matched: list[str] = []
    for specifier in specifiers:
        if specifier in ("", "*", "**"):
            continue  # the whole tool: nothing particular to hide
        base, rest = pattern_base(specifier, roots)
        core = rest.strip("/")
        if core.endswith("/**"):
            core = core[:-3]  # folder/** means the folder and what is in it
        anywhere = "/" not in rest.rstrip("/")
        if not anywhere and not has_magic(core):
            exact.append(str(base / core))
            continue
        start = base if anywhere else base / static_prefix(core)[0]
        matched += [os.path.realpath(path) for path in _walk(start, specifier, roots)]
    return DeniedFiles(tuple(exact), tuple(matched))


def _walk(start: Path, specifier: str, roots: RuleRoots) -> list[Path]:
    """Entries under ``start`` that ``specifier`` matches; a matching folder is taken whole, not entered."""
    found: list[Path] = []
    budget = WALK_BUDGET
    for folder, dirs, files in os.walk(start):
        here = Path(folder)
        kept = []
        for name in dirs:
            if path_pattern_matches(specifier, here / name, roots):
                found.append(here / name)
            else:
                kept.append(name)
        dirs[:] = kept
        found += [here / name for name in files if path_pattern_matches(specifier, here / name, roots)]
        budget -= len(dirs) + len(files)
        if budget <= 0:
            break
    return found
