"""A text file's encoding, byte-order mark and line endings: detected when it is read, kept when it is written,
so an edit changes the characters it meant to change and no others.

Detection: a BOM names the encoding (UTF-8, UTF-16, UTF-32); otherwise valid UTF-8 is UTF-8; otherwise a file
without a single UTF-8 multi-byte sequence is a legacy 8-bit file (Windows-1252 where it fits, else Latin-1, which
holds every byte). A file with UTF-8 sequences *and* bytes that are not UTF-8 is damaged UTF-8: it can be shown,
but Edit refuses it rather than replace its bad bytes.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

UTF8 = "utf-8"
_BOMS = (  # longest first: the UTF-32-LE BOM starts with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, UTF8),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
_LONE_LF = re.compile(r"(?<!\r)\n")
NAMES = {
    UTF8: "UTF-8",
    "utf-16-le": "UTF-16 LE",
    "utf-16-be": "UTF-16 BE",
    "utf-32-le": "UTF-32 LE",
    "utf-32-be": "UTF-32 BE",
    "cp1252": "Windows-1252",
    "latin-1": "Latin-1",
}


@dataclass(frozen=True, slots=True)
class TextFormat:
    """How a file's text is stored: codec (without the BOM), the BOM bytes, and its line ending."""

    encoding: str = UTF8
    bom: bytes = b""
    newline: str = "\n"

    @property
    def label(self) -> str:
        name = NAMES.get(self.encoding, self.encoding)
        return f"{name} with BOM" if self.bom and self.encoding == UTF8 else name


@dataclass(frozen=True, slots=True)
class DecodedText:
    """A file's text and how it was stored; ``problem`` says why it is not valid in its encoding (None if it is)."""

    text: str
    format: TextFormat
    problem: str | None = None


class UnencodableText(ValueError):
    """Text that the file's encoding cannot hold; the message names the character and its line."""


def sniff_encoding(head: bytes) -> tuple[str, bytes]:
    """The encoding and BOM suggested by the first bytes of a file (a sample: the rest may still prove it wrong)."""
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return encoding, bom
    decoder = codecs.getincrementaldecoder(UTF8)()
    try:
        decoder.decode(head, final=False)  # a sequence cut by the sample's end is fine
        return UTF8, b""
    except UnicodeDecodeError:
        return _legacy_or_damaged(head), b""


def _legacy_or_damaged(data: bytes) -> str:
    if _UTF8_SEQUENCE.search(data):
        return UTF8
    try:
        data.decode("cp1252")
        return "cp1252"
    except UnicodeDecodeError:
        return "latin-1"


def detect_newline(text: str) -> str:
    """``\\r\\n`` when most line ends are CRLF, else ``\\n``."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def decode(data: bytes) -> DecodedText:
    """The whole file's text; undecodable bytes show as U+FFFD and set ``problem``."""
    encoding, bom = sniff_encoding(data)
    body = data[len(bom) :]
    problem = None
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        line = body.count(b"\n", 0, exc.start) + 1
        problem = (
            f"it is not valid {NAMES.get(encoding, encoding)}: byte 0x{body[exc.start]:02x} at line {line} "
            f"(offset {exc.start + len(bom)}) cannot be decoded"
        )
        text = body.decode(encoding, errors="replace")
    return DecodedText(text, TextFormat(encoding, bom, detect_newline(text)), problem)


def with_newlines(text: str, newline: str) -> str:
    """``text`` with its lone ``\\n`` line ends written as ``newline`` (CRLF files stay CRLF)."""
    if newline == "\n":
        return text
    return _LONE_LF.sub(newline, text)


def encode(text: str, fmt: TextFormat) -> bytes:
    """``text`` as the file stores it (BOM included); raises :class:`UnencodableText` naming what does not fit."""
    try:
        return fmt.bom + text.encode(fmt.encoding)
    except UnicodeEncodeError as exc:
        char = exc.object[exc.start]
        line = exc.object.count("\n", 0, exc.start) + 1
        code = f"U+{ord(char):04X}"
        what = f"{code} (a lone surrogate)" if 0xD800 <= ord(char) <= 0xDFFF else f"{char!r} ({code})"
        raise UnencodableText(
            f"the text has {what} at line {line}, which {fmt.label} cannot hold; the file keeps its encoding, so "
            "write that character another way (an escape, or an ASCII stand-in)"
        ) from None
