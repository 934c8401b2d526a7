"""The spill file: a command's whole output written as it streams in, redacted piece by piece without letting a
secret through where two pieces meet, and capped in size (with a note saying where and what was left out)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.session.redact import Redactor
from agentcli.tools import spill
from agentcli.tools.spill import SpillFile

KNOWN_KEY = "sk-ant-api03-" + "Q7x" * 20
TWO_LINE_KEY = "first-line-of-a-deploy-key\nsecond-line-of-the-deploy-key"
"""A known secret with a line break in it, where a piece would otherwise end."""
TOKEN = "ghp_" + "Zr9" * 12
KEY_BLOCK = (
    "-----BEGIN RSA PRIVATE KEY-----\n" + ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n" * 40) + "-----END RSA PRIVATE KEY-----"
)
FILLER = ("a plain line of build output, nothing secret in it\n", "no newline here: ", "x" * 300, "key: value\n")
SECRETS = (KNOWN_KEY, TWO_LINE_KEY, TOKEN, KEY_BLOCK)
SPELLED = (KNOWN_KEY, TWO_LINE_KEY, f" {TOKEN} ", f"\n{KEY_BLOCK}\n")
"""As they appear in output (a token's format needs a word boundary before it, a key block starts a line)."""


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of a few kilobytes, so that a short text already crosses many cuts (the overlap still longer than
    any secret here)."""
    monkeypatch.setattr(spill, "PIECE_CHARS", 4096)
    monkeypatch.setattr(spill, "OVERLAP_CHARS", 2048)
    monkeypatch.setattr(spill, "MAX_GATHERED_CHARS", 64 * 1024)


@pytest.fixture
def known_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KNOWN_KEY)
    monkeypatch.setenv("DEPLOY_PRIVATE_KEY", TWO_LINE_KEY)


def _spilled(path: Path, chunks: list[str], max_chars: int = spill.MAX_SAVED_CHARS) -> str:
    spill_file = SpillFile(path, max_chars)
    spill_file.open()
    for chunk in chunks:
        spill_file.write(chunk)
    spill_file.close("".join(chunks)[-1000:])
    return path.read_text(encoding="utf-8")


def _chunked(text: str, sizes: list[int]) -> list[str]:
    chunks, start, index = [], 0, 0
    while start < len(text):
        size = sizes[index % len(sizes)]
        chunks.append(text[start : start + size])
        start += size
        index += 1
    return chunks


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])  # the same for every input
@given(
    parts=st.lists(st.sampled_from(FILLER + SPELLED), min_size=20, max_size=400),
    sizes=st.lists(st.integers(1, 9000), min_size=1, max_size=8),
)
def test_secrets_split_between_pieces_are_redacted(
    parts: list[str], sizes: list[int], small_pieces: None, known_key: None, tmp_path: Path
):
    text = "".join(parts)
    saved = _spilled(tmp_path / "out.log", _chunked(text, sizes))
    assert saved == Redactor.from_environment().redact(text)  # nothing lost, nothing doubled, same redaction
    for secret in (*SECRETS, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"):
        assert saved.count(secret) == 0, secret


@pytest.mark.parametrize("offset", range(-40, 40, 3))
def test_an_assignment_whose_value_is_on_the_next_line_is_redacted_at_any_cut(
    offset: int, small_pieces: None, tmp_path: Path
):
    """The first piece is cut near 4952 (7000 characters gathered in chunks of 1000, less the overlap): the
    value starts there, give or take ``offset``."""
    value = hashlib.sha256(str(offset).encode()).hexdigest()[:28]  # shares no start or end with another case's
    before = "line\n" * ((4952 - len("DEPLOY_TOKEN=\n") + offset) // 5)
    text = before + "DEPLOY_TOKEN=\n" + value + "\n" + "after\n" * 3000
    saved = _spilled(tmp_path / "out.log", _chunked(text, [1000]))
    assert saved.count(value) == 0 and "DEPLOY_TOKEN=" in saved


def test_one_long_line_with_tokens_is_redacted_at_real_sizes(tmp_path: Path):
    """No line breaks at all (`tr -d '\\n'`): the cut falls between tokens, at the real piece size."""
    text = "".join(f"{'b' * 49_000} {TOKEN} " for _ in range(120))  # about 6 MB on one line
    saved = _spilled(tmp_path / "out.log", _chunked(text, [65_536]))
    assert saved.count(TOKEN) == 0
    assert saved == Redactor.from_environment().redact(text)


def test_the_spill_keeps_at_most_its_cap_and_says_what_was_left_out(tmp_path: Path):
    text = "".join(f"line {number}\n" for number in range(200_000))  # about 2.3 MB
    saved = _spilled(tmp_path / "out.log", _chunked(text, [65_536]), max_chars=100_000)
    head, note_and_tail = saved.split("\n\n... [the output was cut here", 1)
    assert head == text[:100_000]
    note, tail = note_and_tail.split("] ...\n\n", 1)
    assert f"only its first 100000 characters were saved; {len(text) - 101_000} more characters were not" in note
    assert tail == text[-1000:] and tail.endswith("line 199999\n")


def test_a_planted_file_at_the_spill_path_is_replaced_not_opened(tmp_path: Path):
    """A symlink (or a FIFO) a command put where the spill goes: the spill is a new file, the target untouched."""
    target = tmp_path / "precious"
    target.write_text("keep me\n")
    link = tmp_path / "out" / "spill.log"
    link.parent.mkdir()
    link.symlink_to(target)
    assert _spilled(link, ["output\n"]) == "output\n"
    assert not link.is_symlink() and target.read_text() == "keep me\n"
