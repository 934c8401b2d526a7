"""Finding what Read deny patterns name on disk, so that the sandbox can hide it."""

from __future__ import annotations

from pathlib import Path

from agentcli.tools.denied_files import find_denied
from agentcli.tools.rules import RuleRoots


def _tree(root: Path) -> None:
    for name in (".env", "src/.env", "src/app.py", "keys/a.pem", "deep/er/b.pem", "deep/er/c.txt", "secrets/x"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("s")


def _present(specifiers: list[str], root: Path, home: Path) -> set[str]:
    found = find_denied(specifiers, RuleRoots(root, root, home)).present()
    return {str(Path(path).relative_to(root)) + ("/" if is_dir else "") for path, is_dir in found}


def test_exact_anchored_and_anywhere_patterns(tmp_path: Path):
    root = (tmp_path / "p").resolve()
    _tree(root)
    assert _present(["./.env"], root, tmp_path) == {".env"}
    assert _present([".env"], root, tmp_path) == {".env", "src/.env"}
    assert _present(["**/*.pem"], root, tmp_path) == {"keys/a.pem", "deep/er/b.pem"}
    assert _present(["./secrets/**"], root, tmp_path) == {"secrets/"}
    assert _present(["/deep/**/*.pem"], root, tmp_path) == {"deep/er/b.pem"}


def test_a_folder_covers_what_is_in_it_and_the_whole_tool_names_nothing(tmp_path: Path):
    root = (tmp_path / "p").resolve()
    _tree(root)
    assert _present(["./deep/**", "**/*.pem"], root, tmp_path) == {"deep/", "keys/a.pem"}
    assert _present(["", "**"], root, tmp_path) == set()


def test_an_exact_name_is_found_when_it_appears_later(tmp_path: Path):
    root = (tmp_path / "p").resolve()
    root.mkdir()
    denied = find_denied(["./later.key"], RuleRoots(root, root, tmp_path))
    assert denied.present() == []
    (root / "later.key").write_text("s")
    assert denied.present() == [(str(root / "later.key"), False)]


def test_a_symlink_to_a_denied_file_leads_to_its_real_place(tmp_path: Path):
    root = (tmp_path / "p").resolve()
    _tree(root)
    (root / "link.pem").symlink_to(root / "src" / "app.py")
    found = find_denied(["*.pem"], RuleRoots(root, root, tmp_path)).present()
    assert (str(root / "src" / "app.py"), False) in found


def test_home_patterns(tmp_path: Path):
    home = (tmp_path / "home").resolve()
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("k")
    root = (tmp_path / "p").resolve()
    root.mkdir()
    found = find_denied(["~/.ssh/**"], RuleRoots(root, root, home)).present()
    assert found == [(str(home / ".ssh"), True)]
