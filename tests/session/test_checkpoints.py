"""The checkpoint store: copies taken before changes, kept privately, restored in the right order, bounded."""

from __future__ import annotations

import stat
from pathlib import Path

from agentcli.session import checkpoints
from agentcli.session.checkpoints import CheckpointStore


def test_restores_each_file_as_it_was_before_the_chosen_prompt(tmp_path: Path):
    store = CheckpointStore(tmp_path / "cp")
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("a0")
    store.begin("one", None)
    store.keep(a)
    a.write_text("a1")
    store.keep(a)  # a second change in the same prompt keeps the first copy
    a.write_text("a1b")
    store.begin("two", "uuid-1")
    store.keep(a)
    a.write_text("a2")
    store.keep(b)
    b.write_text("b2")
    restored, problems = store.restore_files(2)
    assert (a.read_text(), b.exists(), problems) == ("a1b", False, [])
    assert sorted(restored) == sorted([str(a), str(b)])
    store.restore_files(1)
    assert a.read_text() == "a0"
    assert [(c.number, c.prompt, c.before_uuid) for c in store.checkpoints()] == [
        (1, "one", None),
        (2, "two", "uuid-1"),
    ]


def test_copies_are_private_and_survive_a_restart(tmp_path: Path):
    folder = tmp_path / "cp"
    a = tmp_path / "a.txt"
    a.write_text("secret")
    store = CheckpointStore(folder)
    store.begin("one", None)
    store.keep(a)
    copies = [p for p in folder.rglob("*") if p.is_file()]
    assert copies and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in copies)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    a.write_text("changed")
    CheckpointStore(folder).restore_files(1)
    assert a.read_text() == "secret"


def test_bounded_in_prompts_and_file_size(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(checkpoints, "MAX_PROMPTS", 3)
    monkeypatch.setattr(checkpoints, "MAX_FILE_BYTES", 10)
    store = CheckpointStore(tmp_path / "cp")
    big = tmp_path / "big.txt"
    big.write_text("x" * 100)
    for n in range(5):
        store.begin(f"p{n}", None)
        store.keep(big)
    assert [c.number for c in store.checkpoints()] == [3, 4, 5]
    assert not (tmp_path / "cp" / "1").exists()
    _restored, problems = store.restore_files(3)
    assert problems == [f"{big}: not kept (larger than 10 bytes)"]
