"""A command's full output on disk, written as it streams in: redacted piece by piece, and capped in size.

Memory stays flat whatever the command prints: text is held only until about a megabyte has gathered, then
redacted and written. A secret must not escape by being split between two pieces, so a piece ends at a line break
(never inside a private key block or right after a ``NAME=``) at least :data:`OVERLAP_CHARS` before the text
gathered so far ends, and the cut is checked: the text around it must redact the same whole as in two parts.
Where no cut passes, more text is gathered first. Past :data:`MAX_SAVED_CHARS` nothing more is saved; the file
then ends with a note of how much was left out and the output's last characters. The text goes to a
``.partial`` file beside ``path`` that takes its name once complete, so the file at ``path`` is always whole.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import IO

from agentcli.session.redact import Redactor
from agentcli.tools.output import private_folders
from agentcli.tools.untrusted_files import create_private

MAX_SAVED_CHARS = 64_000_000
"""The most of an output that is saved, in characters (64 MB of plain text): enough to read or search, and a
runaway command cannot fill the disk."""
PIECE_CHARS = 1 << 20
OVERLAP_CHARS = 16_384
"""Text kept back after a cut: longer than any credential format or private key block redaction looks for."""
MAX_GATHERED_CHARS = 4 * PIECE_CHARS
"""Where no checked cut was found, a piece is written anyway once this much has gathered."""
_NOT_TOKEN = re.compile(r"[^A-Za-z0-9_\-]")
_OPEN_ASSIGNMENT = re.compile(r"[=:]\s*\\?[\"']?\s*\Z")
_MAX_STEPS_BACK = 16


def _cut_before(text: str, limit: int) -> int:
    """Where to end a piece, at most ``limit``: after a line break, but before a private key block that has not
    ended and before a line that ends in ``=`` or ``:`` (its value may follow on the next); failing that, after
    the last character no token has, and failing that, ``limit``."""
    cut = text.rfind("\n", 0, limit) + 1
    begin = text.rfind("-----BEGIN", 0, cut)
    if begin != -1 and text.find("-----END", begin, cut) == -1:
        cut = text.rfind("\n", 0, begin) + 1
    for _ in range(_MAX_STEPS_BACK):
        if cut == 0 or not _OPEN_ASSIGNMENT.search(text, max(0, cut - 64), cut):
            break
        cut = text.rfind("\n", 0, cut - 1) + 1
    if cut > 0:
        return cut
    start = max(0, limit - OVERLAP_CHARS)
    separators = [match.end() for match in _NOT_TOKEN.finditer(text, start, limit)]
    return separators[-1] if separators else limit


class SpillFile:
    """The file ``path``, created when the first text is written (see the module's docstring)."""

    def __init__(self, path: Path, max_chars: int = MAX_SAVED_CHARS) -> None:
        self.path = path
        self._max_chars = max_chars
        self._handle: IO[str] | None = None
        self._redactor = Redactor.from_environment()
        self._gathered: list[str] = []
        self._gathered_chars = 0
        self._next_try = PIECE_CHARS + OVERLAP_CHARS
        self.accepted = 0
        """Characters taken in to be saved."""
        self.left_out = 0
        """Characters not saved because the cap was reached."""

    @property
    def _partial(self) -> Path:
        return self.path.with_name(self.path.name + ".partial")

    def open(self) -> None:
        """Create the file (folders included, private); :class:`OSError` when that fails."""
        private_folders(self.path)
        self._handle = create_private(self._partial)

    def write(self, text: str) -> None:
        room = self._max_chars - self.accepted
        if len(text) > room:
            self.left_out += len(text) - max(room, 0)
            text = text[: max(room, 0)]
        if not text:
            return
        self.accepted += len(text)
        self._gathered.append(text)
        self._gathered_chars += len(text)
        if self._gathered_chars >= self._next_try:
            self._write_piece()

    def _write_piece(self) -> None:
        text = "".join(self._gathered)
        cut = _cut_before(text, len(text) - OVERLAP_CHARS)
        if not self._cut_holds(text, cut) and len(text) < MAX_GATHERED_CHARS:
            self._gathered = [text]
            self._next_try = len(text) + PIECE_CHARS // 4
            return
        self._emit(text[:cut])
        rest = text[cut:]
        self._gathered = [rest] if rest else []
        self._gathered_chars = len(rest)
        self._next_try = len(rest) + PIECE_CHARS

    def _cut_holds(self, text: str, cut: int) -> bool:
        """Whether the text around ``cut`` redacts the same in two parts as whole (no secret spans the cut)."""
        start, end = max(0, cut - OVERLAP_CHARS), cut + OVERLAP_CHARS
        redact = self._redactor.redact
        return redact(text[start:end]) == redact(text[start:cut]) + redact(text[cut:end])

    def _emit(self, text: str) -> None:
        if self._handle is not None and text:
            with contextlib.suppress(OSError):
                self._handle.write(self._redactor.redact(text))

    def close(self, last: str = "") -> Path | None:
        """Write what is gathered, close, and give the file its name; ``last`` is the end of the whole output, of
        which the part that was left out is added after a note saying so. Where the output was saved (None when
        it could not be)."""
        if self._handle is None:
            return None
        self._emit("".join(self._gathered))
        self._gathered.clear()
        if self.left_out:
            shown = last[-self.left_out :] if self.left_out < len(last) else last
            skipped = self.left_out - len(shown)
            note = (
                f"\n\n... [the output was cut here: only its first {self._max_chars} characters were saved; "
                f"{skipped} more characters were not, and its last {len(shown)} follow] ...\n\n"
            )
            with contextlib.suppress(OSError):
                self._handle.write(note + self._redactor.redact(shown))
        try:
            self._handle.close()
            os.replace(self._partial, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(self._partial)
            return None
        finally:
            self._handle = None
        return self.path
