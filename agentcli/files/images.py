"""Images the model can look at: a file is one if its first bytes say so (not its name), and it is small enough to
send as a base64 ``image`` block."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

MAX_IMAGE_BYTES = 3_750_000
"""The API takes images up to 5 MB once base64-encoded: about 3.75 MB of file."""
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})


class ImageTooLarge(ValueError):
    """An image the API would refuse; the message says how big it is and what is allowed."""


def sniff_image(head: bytes) -> str | None:
    """The media type of an image whose file starts with ``head``; None if it is not one the API reads."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_block(path: Path, data: bytes | None = None) -> dict[str, Any] | None:
    """An ``image`` content block for ``path`` (None if it is not an image); raises :class:`ImageTooLarge` or
    ``OSError``."""
    if data is None:
        with path.open("rb") as handle:
            data = handle.read(MAX_IMAGE_BYTES + 1)
    media_type = sniff_image(data[:16])
    if media_type is None:
        return None
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageTooLarge(
            f"{path} is larger than {MAX_IMAGE_BYTES:,} bytes, the most an image sent to the model may be"
        )
    encoded = base64.b64encode(data).decode("ascii")
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": encoded}}
