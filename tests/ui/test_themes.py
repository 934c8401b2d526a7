"""Theme files: the built-in ones load, ship inside the package, and bad files give a clear message."""

from __future__ import annotations

from pathlib import Path

from agentcli.ui.tui.launch import pick_theme
from agentcli.ui.tui.themes import available_themes, builtin_theme_dir, load_theme_dir, save_theme_choice

REPO = Path(__file__).resolve().parents[2]


def test_builtin_themes_load():
    themes, problems = available_themes()
    assert problems == []
    assert {"dark", "light", "high-contrast"} <= set(themes)
    assert themes["light"].dark is False and themes["dark"].dark is True


def test_top_level_themes_match_the_packaged_copies():
    top = {p.name: p.read_bytes() for p in (REPO / "themes").glob("*.toml")}
    packaged = {p.name: p.read_bytes() for p in builtin_theme_dir().glob("*.toml")}
    assert top == packaged, "edit themes/ and copy the files to agentcli/ui/tui/themes/ (they ship from there)"


def test_user_theme_is_loaded_and_a_bad_one_is_reported(hermetic_home: Path):
    folder = hermetic_home / "config" / "agentcli" / "themes"
    folder.mkdir(parents=True)
    (folder / "mine.toml").write_text('primary = "#123456"\ndark = true\n')
    (folder / "broken.toml").write_text('primary = "not-a-colour"\n')
    (folder / "typo.toml").write_text('primry = "#123456"\n')
    themes, problems = available_themes()
    assert "mine" in themes
    assert any("broken.toml" in p and "not a colour" in p for p in problems)
    assert any("typo.toml" in p and "unknown key" in p for p in problems)


def test_unknown_theme_name_falls_back_to_the_default(tmp_path: Path):
    name, _themes, problems = pick_theme("nope", tmp_path)
    assert name == "dark" and any("Unknown theme 'nope'" in p for p in problems)


def test_theme_choice_is_saved_and_used(tmp_path: Path):
    assert save_theme_choice("light") is None
    name, _themes, problems = pick_theme(None, tmp_path)
    assert (name, problems) == ("light", [])


def test_empty_folder_is_fine(tmp_path: Path):
    assert load_theme_dir(tmp_path / "missing") == ([], [])
