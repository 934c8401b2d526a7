"""Skill discovery: ``<folder>/<skill>/SKILL.md`` under the user's and the project's skill folders (Claude Code's
layout), plus plugins'. Only the name and description of each reach the model at first; the body is loaded when
the model invokes the ``Skill`` tool. Later sources win by name: user, plugins, then project.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentcli.config.frontmatter import FrontMatterError, read_markdown
from agentcli.config.paths import extension_folders

SKILL_FILE = "SKILL.md"


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path
    """The SKILL.md file; its folder holds whatever else the skill refers to."""
    source: str

    def body(self) -> str:
        return read_markdown(self.path).body


def skills_in(folder: Path, source: str, problems: list[str]) -> list[Skill]:
    found: list[Skill] = []
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob(f"*/{SKILL_FILE}")):
        try:
            meta = read_markdown(path).meta
        except (OSError, UnicodeDecodeError, FrontMatterError) as exc:
            problems.append(str(exc) if isinstance(exc, FrontMatterError) else f"{path}: {exc}")
            continue
        description = str(meta.get("description") or "").strip()
        if not description:
            problems.append(f'{path}: a skill needs a description (front matter key "description")')
            continue
        found.append(Skill(str(meta.get("name") or path.parent.name).strip(), description, path, source))
    return found


@dataclass
class SkillCatalog:
    skills: dict[str, Skill]
    problems: list[str]

    def add(self, skills: list[Skill]) -> None:
        for skill in skills:
            self.skills[skill.name] = skill


def discover_skills(project_dir: Path, plugin_folders: list[tuple[str, Path]] | None = None) -> SkillCatalog:
    catalog = SkillCatalog({}, [])
    folders = extension_folders(project_dir, "skills")
    for source, folder in [*folders[:2], *(plugin_folders or []), *folders[2:]]:
        catalog.add(skills_in(folder, source, catalog.problems))
    return catalog
