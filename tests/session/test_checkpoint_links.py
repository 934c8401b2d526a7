"""Checkpoints against symlinks a sandboxed command planted: a copy is taken from, and put back to, exactly the
file the permission check judged, so a restore never writes (or deletes) through a link into the home folder, and a
capture never copies a secret a link points at into the project."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.session.checkpoints import CheckpointStore


@pytest.fixture
def home() -> Path:
    """The test's own home folder (see tests/conftest.py), with a start-up file worth protecting."""
    folder = Path.home()
    (folder / ".bashrc").write_text("export SAFE=1\n")
    return folder


def store_with(tmp_path: Path) -> CheckpointStore:
    store = CheckpointStore(tmp_path / "checkpoints")
    store.begin("change things", None)
    return store


def test_a_restore_does_not_write_through_a_link_planted_in_the_files_place(tmp_path: Path, project: Path, home):
    notes = project / "notes.txt"
    notes.write_text("v0\n")
    store = store_with(tmp_path)
    store.keep(notes, notes)
    notes.write_text("v1\n")
    notes.unlink()  # what a sandboxed command can do in the project
    notes.symlink_to(home / ".bashrc")
    restored, problems = store.restore_files(1)
    assert restored == [] and len(problems) == 1
    assert f"{notes} is a symbolic link to {home / '.bashrc'}" in problems[0]
    assert "remove the link, then rewind again" in problems[0]
    assert (home / ".bashrc").read_text() == "export SAFE=1\n" and notes.is_symlink()


def test_a_restore_does_not_follow_a_folder_swapped_for_a_link_home(tmp_path: Path, project: Path, home):
    docs = project / "docs"
    docs.mkdir()
    (docs / ".bashrc").write_text("# the project's sample\n")
    store = store_with(tmp_path)
    store.keep(docs / ".bashrc", docs / ".bashrc")
    (docs / ".bashrc").write_text("# changed\n")
    docs.rename(project / "docs.moved")
    docs.symlink_to(home, target_is_directory=True)
    restored, problems = store.restore_files(1)
    assert restored == [] and f"{docs} is a symbolic link to {home}" in problems[0]
    assert (home / ".bashrc").read_text() == "export SAFE=1\n"


def test_removing_a_created_file_does_not_remove_what_a_swapped_folder_leads_to(tmp_path: Path, project: Path, home):
    """The prompt created ``build/.bashrc``; a command then swaps ``build`` for a link to the home folder. Undoing
    the creation must not delete the real start-up file."""
    build = project / "build"
    build.mkdir()
    created = build / ".bashrc"
    store = store_with(tmp_path)
    store.keep(created, created)
    created.write_text("# generated\n")
    build.rename(project / "build.moved")
    build.symlink_to(home, target_is_directory=True)
    restored, problems = store.restore_files(1)
    assert restored == [] and "is a symbolic link to" in problems[0]
    assert (home / ".bashrc").read_text() == "export SAFE=1\n"


def test_a_capture_does_not_copy_a_secret_a_planted_link_points_at(tmp_path: Path, project: Path, home):
    """The file becomes a link to a secret between the permission check and the checkpoint: nothing is copied,
    and the restore says so instead of writing the secret into the project."""
    secret = home / ".ssh" / "id_ed25519"
    secret.parent.mkdir()
    secret.write_text("PRIVATE KEY\n")
    notes = project / "notes.txt"
    notes.symlink_to(secret)
    store = store_with(tmp_path)
    store.keep(notes, notes)  # the check judged the file at notes.txt, which had no link yet
    copies = [path.read_text() for path in (tmp_path / "checkpoints").rglob("*.bak")]
    assert copies == []
    notes.unlink()
    notes.write_text("the model's text\n")
    restored, problems = store.restore_files(1)
    assert restored == [] and problems == [f"{notes}: not kept ({notes} is a symbolic link to {secret})"]
    assert notes.read_text() == "the model's text\n"


def test_a_users_link_to_a_file_in_the_project_is_restored_through(tmp_path: Path, project: Path):
    """The link was there when the check ran: its file is what was judged, kept and put back; the link stays."""
    real = project / "config" / "app.toml"
    real.parent.mkdir()
    real.write_text("a = 1\n")
    link = project / "app.toml"
    link.symlink_to(real)
    store = store_with(tmp_path)
    store.keep(link)  # no checked path given: where the link leads now
    real.write_text("a = 2\n")
    restored, problems = store.restore_files(1)
    assert (restored, problems) == ([str(link)], [])
    assert link.is_symlink() and real.read_text() == "a = 1\n"
