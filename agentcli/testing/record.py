"""What the fake server remembers about each request, and the JSON-lines log it can append to."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SECRET_HEADERS = frozenset({"authorization", "x-api-key", "proxy-authorization", "cookie"})


@dataclass
class RecordedRequest:
    """One request as received; `violations` lists what the real API would have rejected or the script expected.

    `status` is the HTTP status sent back, or 0 when the connection was closed without a response.
    """

    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    violations: list[str] = field(default_factory=list)
    turn_index: int | None = None
    time: float = 0.0
    method: str = "POST"
    query: str = ""
    status: int | None = None
    request_id: str = ""


class RequestLog:
    """Appends one JSON line per request; credentials never reach the file."""

    def __init__(self, path: str | Path) -> None:
        self._path = Path(path)
        self._lock = threading.Lock()

    def write(self, record: RecordedRequest) -> None:
        """Append `record`, dropping any header that could carry an API key."""
        line = {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "method": record.method,
            "path": record.path,
            "status": record.status,
            "request_id": record.request_id,
            "turn_index": record.turn_index,
            "violations": record.violations,
            "headers": {k: v for k, v in record.headers.items() if k.lower() not in SECRET_HEADERS},
            "body": record.body,
        }
        text = json.dumps(line, ensure_ascii=False, default=str) + "\n"
        with self._lock, self._path.open("a", encoding="utf-8") as fh:
            fh.write(text)
