"""Keep credentials out of transcripts.

The engine never records headers or the environment, but a tool can still surface a secret (a model that reads a
``.env`` file or runs ``env``). Every line is checked for the values of credential-like environment variables
before it is written; a match is replaced, so a transcript can be shared or grepped without leaking a key.
A redacted message differs from the one sent, so resuming after it misses the prompt cache once: a fair price.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping

REDACTED = "[REDACTED]"
# Always secret once long enough to be a real credential.
_KNOWN = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_CUSTOM_HEADERS")
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)(_|$)", re.IGNORECASE)
_MIN_KNOWN = 12  # placeholders such as "ollama" or "test-key" are not secrets
_MIN_GUESSED = 16


def secret_values(environ: Mapping[str, str], extra: Iterable[str] = ()) -> list[str]:
    """The values worth hiding: known credentials, and long values of variables whose names say "secret"."""
    found: set[str] = set()
    for name, value in environ.items():
        value = value.strip()
        known = name in _KNOWN and len(value) >= _MIN_KNOWN
        guessed = len(value) >= _MIN_GUESSED and _SECRET_NAME.search(name) and not value.startswith(("/", "~"))
        if known or guessed:
            found.add(value)
    found.update(value for value in extra if len(value) >= _MIN_KNOWN)
    # Longest first, so a secret that contains another is replaced whole.
    return sorted(found, key=len, reverse=True)


class Redactor:
    """Replaces known secret values in serialized JSON lines (both raw and JSON-escaped spellings)."""

    def __init__(self, secrets: Iterable[str]) -> None:
        forms: list[str] = []
        for secret in secrets:
            forms.append(secret)
            escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
            if escaped != secret:
                forms.append(escaped)
        self._forms = tuple(forms)

    @classmethod
    def from_environment(cls, extra: Iterable[str] = ()) -> Redactor:
        return cls(secret_values(os.environ, extra))

    def __bool__(self) -> bool:
        return bool(self._forms)

    def redact(self, text: str) -> str:
        for form in self._forms:
            if form in text:
                text = text.replace(form, REDACTED)
        return text
