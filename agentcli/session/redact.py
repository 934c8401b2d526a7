"""Keep credentials out of every file agentcli writes: transcripts, saved tool output, exports, prompt history, logs.

The engine never records headers or the environment, but a tool can still surface a secret (a model that reads a
``.env`` file or runs ``env``). Text is checked before it is written for three things: the values of
credential-like environment and settings variables (also a long enough start or end of one, since output cut in
the middle can split a key in two), tokens of well-known formats (API keys, private key blocks), and
``NAME=value`` assignments whose name says "secret". A match is replaced, so a file can be shared or grepped
without leaking a key. A redacted message differs from the one sent, so resuming after it misses the prompt cache
once: a fair price.
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
_MIN_FRAGMENT = 10
"""A start or end of a known secret this long is removed too (output cut in the middle splits keys)."""

_TOKEN_FORMATS = (  # (a literal every match contains, so most text is skipped by a plain search; the format)
    (
        "-----BEGIN",
        re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.DOTALL),
    ),
    ("sk-", re.compile(r"\bsk-(?:ant-[A-Za-z0-9_\-]{16,}|(?:proj-)?[A-Za-z0-9_\-]{32,})")),
    ("_", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{40,}")),
    ("AKIA", re.compile(r"\bAKIA[0-9A-Z]{16}\b")),
    ("xox", re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}")),
    ("AIza", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}")),
    ("k_", re.compile(r"\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}")),
)
_SECRET_WORDS = ("key", "token", "secret", "passw", "credential")
_ASSIGNMENT = re.compile(
    r"(?i)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)[A-Z0-9_]*\\?[\"']?\s*[=:]\s*\\?[\"']?"
    r"([^\s\"'\\,;]{16,})"
)

_remembered: set[str] = set()


def remember_secrets(values: Iterable[str]) -> None:
    """Values found outside the environment (settings files' ``env``) that every redactor should also hide."""
    _remembered.update(value.strip() for value in values if len(value.strip()) >= _MIN_KNOWN)


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
    """Replaces secrets in text (raw and JSON-escaped spellings), including their halves and well-known formats."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self._given = tuple(secrets)
        self._known: frozenset[str] = frozenset()
        self._secrets: tuple[str, ...] = ()
        self._forms: tuple[str, ...] = ()

    def _refresh(self) -> None:
        """Take in secrets remembered since (settings are read after the transcript is opened)."""
        known = frozenset(self._given) | frozenset(_remembered)
        if known == self._known:
            return
        self._known = known
        self._secrets = tuple(sorted(known, key=len, reverse=True))
        forms: list[str] = []
        for secret in self._secrets:
            forms.append(secret)
            escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
            if escaped != secret:
                forms.append(escaped)
        self._forms = tuple(forms)

    @classmethod
    def from_environment(cls, extra: Iterable[str] = ()) -> Redactor:
        return cls(secret_values(os.environ, extra))

    def __bool__(self) -> bool:
        return True  # well-known token formats are looked for even when no secret value is known

    def redact(self, text: str) -> str:
        self._refresh()
        for form in self._forms:
            if form in text:
                text = text.replace(form, REDACTED)
        for secret in self._secrets:
            if len(secret) > _MIN_FRAGMENT:
                text = _fragments(text, secret)
        for literal, pattern in _TOKEN_FORMATS:
            if literal in text:
                text = pattern.sub(REDACTED, text)
        return _assignments(text)


def _assignments(text: str) -> str:
    """``API_KEY=…``, ``"password": "…"``: the value goes, and is remembered as a secret from then on (found from
    the name's secret word, which is rare, so most text costs one search per word)."""
    lowered = text.lower()
    spans: set[tuple[int, int]] = set()
    for word in _SECRET_WORDS:
        start = lowered.find(word)
        while start != -1:
            match = _ASSIGNMENT.match(text, start)
            if match is not None:
                spans.add(match.span(1))
                _remembered.add(match.group(1))  # so that a later mention in plain prose goes too
            start = lowered.find(word, start + 1)
    for begin, end in sorted(spans, reverse=True):
        text = text[:begin] + REDACTED + text[end:]
    return text


def _fragments(text: str, secret: str) -> str:
    """Remove where the text holds only a start or only an end of ``secret`` (at least ``_MIN_FRAGMENT`` long)."""
    spans: list[tuple[int, int]] = []
    head, tail = secret[:_MIN_FRAGMENT], secret[-_MIN_FRAGMENT:]
    found = text.find(head)
    while found != -1:
        end = found + _MIN_FRAGMENT
        while end < len(text) and end - found < len(secret) and text[end] == secret[end - found]:
            end += 1
        spans.append((found, end))
        found = text.find(head, found + 1)
    found = text.find(tail)
    while found != -1:
        begin, offset = found, len(secret) - _MIN_FRAGMENT
        while begin > 0 and offset > 0 and text[begin - 1] == secret[offset - 1]:
            begin -= 1
            offset -= 1
        spans.append((begin, found + _MIN_FRAGMENT))
        found = text.find(tail, found + 1)
    merged: list[list[int]] = []
    for begin, end in sorted(spans):
        if merged and begin <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([begin, end])
    for begin, end in reversed(merged):
        text = text[:begin] + REDACTED + text[end:]
    return text


def redact_text(text: str) -> str:
    """``text`` without the secrets this process knows of (for files written outside the transcript store)."""
    return Redactor.from_environment().redact(text)
