"""Kill agentcli at random moments of a tool session, resume each one, and check nothing was lost.

For each of N kill points: run ``agentcli -p PROMPT`` (a real process, the real SDK) against the fake Messages API
playing a multi-turn tool session (parallel reads, a slow command, thinking, edits and a large write, chunked
streams with delays), SIGKILL it at a random moment, then ``agentcli -p --resume ID NEXT`` against a fresh fake
server. A kill point passes when:

- if any request left the killed run, its transcript exists and holds the prompt (persisted before sending);
- the resumed run exits 0 and the fake server accepted its request (strict validation: every tool_use answered);
- the resumed request holds the original prompt and the new one, and starts with the last request the killed run
  sent, byte for byte (nothing sent is lost or changed, so the prompt cache still hits);
- loading the transcript again gives the resumed history plus the reply, with no new warnings (repairs persisted);
- every file the session writes (an Edit of a small file, a Write and an Edit of a ~1.3 MB one) is wholly the old
  or wholly the new version, never empty or half-written, wherever the kill fell (inside Write/Edit included).

    python scripts/crash_resume.py [--runs 200] [--jobs 2] [--seed S] [--cli-every K] [-v]

``--cli-every K`` resumes every K-th kill point through the command line and the others in this process through
the same ``open_session`` + ``build_engine`` path (a second SDK import per kill point is most of the cost);
the default, 1, resumes all of them through the command line.

Prints ``N/N ok`` and how the kills fell (before the prompt was written, mid-write, waiting for the model, during a
tool, during Write/Edit, after the end); exit status 0 only if every kill point passed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agentcli.testing import FakeAnthropicServer  # noqa: E402

PROMPT = "Survey the project: read README.md and src/app.py, wait for the slow step, then rewrite. ❄ «keep this»"
SLOW_TOOL_S = 0.15
STARTUP_SHARE = 0.15
BIG_LINES = 20_000
"""data/big.txt: ~1.3 MB, so writing and editing it takes long enough for kills to land inside Write and Edit."""
APP = "def add(a, b):\n    return a + b\n"
APP_EDITED = 'def add(a, b):\n    """Add two numbers."""\n    return a + b\n'
CLI_FLAGS = ("--permission-mode", "acceptEdits", "--allowedTools", "Bash")


def big_text(tag: str) -> str:
    return "".join(f"{tag} line {n:06d}: the quick brown fox jumps over the lazy dog\n" for n in range(BIG_LINES))


BIG_WRITTEN = big_text("written")
BIG_EDITED = BIG_WRITTEN.replace("written line 010000", "edited line 010000", 1)


def scenario(project: Path) -> dict[str, Any]:
    readme, app, big = (str(project / name) for name in ("README.md", "src/app.py", "data/big.txt"))
    return {
        "turns": [
            {
                "content": [
                    {"type": "text", "text": "I'll start with two files at once.", "chunks": 6},
                    {
                        "type": "tool_use",
                        "id": "toolu_crash_1a",
                        "name": "Read",
                        "input": {"file_path": readme},
                        "chunks": 4,
                    },
                    {
                        "type": "tool_use",
                        "id": "toolu_crash_1b",
                        "name": "Read",
                        "input": {"file_path": app},
                        "chunks": 4,
                    },
                ],
                "delay_ms": 4,
            },
            {
                "content": [
                    {"type": "thinking", "thinking": "A slow step next.", "signature": "sig_crash", "chunks": 4},
                    {
                        "type": "tool_use",
                        "id": "toolu_crash_2",
                        "name": "Bash",
                        "input": {"command": f"sleep {SLOW_TOOL_S} && echo slow output"},
                        "chunks": 3,
                    },
                ],
                "delay_ms": 4,
            },
            {
                "content": [
                    {"type": "text", "text": "Now the rewrite.", "chunks": 5},
                    {
                        "type": "tool_use",
                        "id": "toolu_crash_3a",
                        "name": "Edit",
                        "input": {
                            "file_path": app,
                            "old_string": "def add(a, b):\n",
                            "new_string": APP_EDITED.split("    return")[0],
                        },
                    },
                    {
                        "type": "tool_use",
                        "id": "toolu_crash_3b",
                        "name": "Write",
                        "input": {"file_path": big, "content": BIG_WRITTEN},
                        "chunks": 8,
                    },
                ],
                "delay_ms": 4,
            },
            {
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_crash_4",
                        "name": "Edit",
                        "input": {
                            "file_path": big,
                            "old_string": "written line 010000",
                            "new_string": "edited line 010000",
                        },
                    },
                ],
                "delay_ms": 4,
            },
            {
                "content": [{"type": "text", "text": "Summary: a tiny project that adds numbers. " * 8, "chunks": 30}],
                "delay_ms": 4,
            },
        ]
    }


def make_project(root: Path) -> Path:
    project = root / "project"
    project.mkdir(parents=True)
    (project / "src").mkdir()
    (project / "data").mkdir()
    (project / "README.md").write_text("# Demo\n\nAdds numbers.\n", encoding="utf-8")
    (project / "src" / "app.py").write_text(APP, encoding="utf-8")
    # The session writes a file of a million characters through the model; give it a window that holds that.
    (project / ".agentcli").mkdir()
    (project / ".agentcli" / "settings.json").write_text('{"contextWindow": 1000000}', encoding="utf-8")
    return project


def files_intact(project: Path) -> str | None:
    """Why a file the session writes is empty or half-written, or None when each is wholly old or wholly new."""
    app = (project / "src" / "app.py").read_text(encoding="utf-8")
    if app not in (APP, APP_EDITED):
        return f"src/app.py is neither the original nor the edit ({len(app)} characters)"
    big = project / "data" / "big.txt"
    if big.exists() and big.read_text(encoding="utf-8") not in (BIG_WRITTEN, BIG_EDITED):
        return f"data/big.txt is neither written nor edited whole ({big.stat().st_size} bytes)"
    return None


def leftover_temp_files(project: Path) -> int:
    """Temporary files a kill left in the middle of a write (the target itself is whole either way)."""
    return sum(1 for _ in project.rglob(".*.tmp"))


def use_home(home: Path) -> None:
    """One home for every kill point (each has its own project folder, so its own sessions folder); this process
    and its children read the same data folder."""
    for name in list(os.environ):
        if name.startswith(("ANTHROPIC_", "AGENTCLI_", "CLAUDE_")):
            del os.environ[name]
    os.environ.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"))


def child_env(server: FakeAnthropicServer) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        ANTHROPIC_API_KEY="crash-test-key",
        ANTHROPIC_BASE_URL=server.base_url,
        PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
    )
    return env


def transcript_of(project: Path) -> Path | None:
    from agentcli.config.paths import sessions_dir

    found = list(sessions_dir(project).glob("*.jsonl"))
    return found[0] if found else None


def resume_in_process(project: Path, session_id: str, prompt: str, server: FakeAnthropicServer) -> tuple[int, str]:
    """What ``agentcli -p --resume`` does, minus argument parsing and the SDK import."""
    from agentcli.api.client import Credentials
    from agentcli.bootstrap import SessionOptions, build_engine

    engine = build_engine(
        SessionOptions(cwd=project, resume=session_id), Credentials(api_key="crash-test-key", base_url=server.base_url)
    )

    async def run() -> dict[str, Any]:
        result: dict[str, Any] = {}
        try:
            async for message in engine.submit_message(prompt):
                result = message
        finally:
            await engine.aclose()
            engine.config.recorder.close()
        return result

    result = asyncio.run(run())
    return (1 if result.get("is_error", True) else 0), json.dumps(result.get("errors", []))


@dataclass
class Outcome:
    index: int
    ok: bool
    phase: str
    detail: str = ""
    repairs: list[str] = field(default_factory=list)
    leftover_temp_files: int = 0


def classify(path: Path | None) -> str:
    if path is None:
        return "before the prompt was written"
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        return "mid-write"
    from agentcli.session.load import load_transcript

    transcript = load_transcript(path)
    if transcript.dangling:
        if {block.get("name") for block in transcript.dangling} & {"Write", "Edit"}:
            return "during Write/Edit"
        return "during a tool"
    last = json.loads(data.splitlines()[-1])
    return "after the end" if last.get("type") == "result" else "waiting for the model"


def run_once(index: int, seed: int, timing: tuple[float, float], cli: bool, home: Path, verbose: bool) -> Outcome:
    rng = random.Random(seed * 1_000_003 + index)
    first_request_s, rest_s = timing
    root = home / f"run{index}"
    try:
        outcome = _kill_and_resume(index, rng, root, first_request_s, rest_s, cli)
    except Exception as exc:  # report, never stop the other kill points
        outcome = Outcome(index, False, "harness", f"{type(exc).__name__}: {exc}")
    if outcome.ok:
        path = transcript_of(root / "project")
        shutil.rmtree(root, ignore_errors=True)
        if path is not None:
            path.unlink()
    else:
        outcome.detail += f"\n  (files kept in {root} and {transcript_of(root / 'project')})"
    if verbose or not outcome.ok:
        mark = "ok  " if outcome.ok else "FAIL"
        print(f"[{index:3d}] {mark} {outcome.phase}{': ' + outcome.detail if outcome.detail else ''}", flush=True)
    return outcome


def _kill_and_resume(  # noqa: C901
    index: int, rng: random.Random, root: Path, first_request_s: float, rest_s: float, cli: bool
) -> Outcome:
    project = make_project(root)
    server = FakeAnthropicServer(scenario(project)).start()
    try:
        env = child_env(server)
        started = time.monotonic()
        with (root / "killed-run.stderr").open("wb") as stderr:
            proc = subprocess.Popen(
                [sys.executable, "-m", "agentcli", "-p", PROMPT, *CLI_FLAGS],
                cwd=project,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
            if rng.random() < STARTUP_SHARE:
                deadline = started + rng.uniform(0.2, 1.1) * first_request_s
            else:
                while server.turns_consumed == 0 and proc.poll() is None and time.monotonic() - started < 30:
                    time.sleep(0.002)
                deadline = time.monotonic() + rng.uniform(0, rest_s * 1.15)
            while proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.001)
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
    finally:
        server.stop()
    broken = files_intact(project)
    leftovers = leftover_temp_files(project)
    sent = [r for r in server.requests if r.path.rstrip("/") == "/v1/messages" and r.body]
    if any(r.violations for r in server.requests):
        return Outcome(index, False, "killed run", f"the killed run sent an invalid request: {server.requests}")
    path = transcript_of(project)
    phase = classify(path)
    if broken:
        return Outcome(index, False, phase, broken)
    if path is None:
        if sent:
            return Outcome(index, False, phase, "a request left before the prompt was on disk")
        return Outcome(index, True, phase)

    from agentcli.api.cache import without_cache_control
    from agentcli.session.load import load_transcript
    from agentcli.ui.reader import user_text

    before = load_transcript(path)
    user_texts = [user_text(m["content"]) for m in before.messages if m["role"] == "user"]
    if PROMPT not in user_texts:
        return Outcome(index, False, phase, f"the prompt is not in the transcript ({before.warnings})")

    follow_up = f"continue please (kill point {index})"
    resumed_server = FakeAnthropicServer({"turns": [{"content": [{"type": "text", "text": "Resumed."}]}]}).start()
    try:
        if cli:
            proc2 = subprocess.run(
                [sys.executable, "-m", "agentcli", "-p", "--resume", path.stem, follow_up, "--output-format", "json"],
                cwd=project,
                env=child_env(resumed_server),
                capture_output=True,
                text=True,
                timeout=60,
            )
            code, errors = proc2.returncode, proc2.stderr.strip()[-800:]
        else:
            code, errors = resume_in_process(project, path.stem, follow_up, resumed_server)
    finally:
        resumed_server.stop()
    if code != 0:
        return Outcome(index, False, phase, f"resume exited {code}: {errors}")
    requests = resumed_server.requests
    if len(requests) != 1 or requests[0].violations:
        problems = [v for r in requests for v in r.violations]
        return Outcome(index, False, phase, f"the fake server rejected the resumed request: {problems}")
    messages = without_cache_control(requests[0].body["messages"])  # where the cache markers sit is not history
    if messages[-1]["role"] != "user" or user_text(messages[-1]["content"]) != follow_up:
        return Outcome(index, False, phase, "the resumed request does not end with the new prompt")
    if not any(m["role"] == "user" and user_text(m["content"]) == PROMPT for m in messages):
        return Outcome(index, False, phase, "the resumed request lost the original prompt")
    if sent:
        last = without_cache_control(sent[-1].body["messages"])
        if json.dumps(messages[: len(last)]) != json.dumps(last):
            return Outcome(index, False, phase, "the resumed request does not start with what was already sent")
    after = load_transcript(path)
    reply = {"role": "assistant", "content": [{"type": "text", "text": "Resumed."}]}
    *history, prompt, answer = after.messages if len(after.messages) >= 2 else [{}, {}]
    # The request sent the new prompt as a block (to mark it for the prompt cache); the history keeps its text.
    same_prompt = prompt.get("role") == "user" and user_text(prompt.get("content")) == follow_up
    if not same_prompt or json.dumps([*history, answer]) != json.dumps([*messages[:-1], reply]):
        return Outcome(index, False, phase, "reloading the transcript gives a different history")
    if after.warnings:
        return Outcome(index, False, phase, f"repairs were not persisted: {after.warnings}")
    repairs = [w.split(": ", 1)[-1] for w in before.warnings]
    return Outcome(index, True, phase + (" (resumed by the CLI)" if cli else ""), "", repairs, leftovers)


def calibrate(home: Path, verbose: bool) -> tuple[float, float]:
    """One uncut run: when its first request arrives and how long the rest takes."""
    root = home / "calibrate"
    try:
        project = make_project(root)
        server = FakeAnthropicServer(scenario(project)).start()
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "agentcli", "-p", PROMPT, *CLI_FLAGS],
            cwd=project,
            env=child_env(server),
            capture_output=True,
            text=True,
            timeout=60,
        )
        ended = time.monotonic()
        server.stop()
        turns = len(scenario(project)["turns"])
        if proc.returncode != 0 or len(server.requests) != turns or any(r.violations for r in server.requests):
            raise SystemExit(f"the uncut session failed: exit {proc.returncode}\n{proc.stderr}")
        if (project / "src" / "app.py").read_text() != APP_EDITED or files_intact(project):
            raise SystemExit("the uncut session did not leave the files as scripted")
        first = server.requests[0].time - started
        if verbose:
            print(f"uncut run: first request after {first:.2f} s, whole run {ended - started:.2f} s")
        return first, ended - started - first
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="kill points (default 200)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="kill points run side by side")
    parser.add_argument("--seed", type=int, default=None, help="repeat a run exactly (printed at the start)")
    parser.add_argument(
        "--cli-every",
        type=int,
        default=1,
        metavar="K",
        help="resume every K-th kill point through the command line, the rest in process",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per kill point")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    print(f"crash_resume: {args.runs} kill points, {args.jobs} at a time, seed {seed}", flush=True)
    home = Path(tempfile.mkdtemp(prefix="crash-resume-"))
    use_home(home)
    import anthropic  # noqa: F401  (imported once here, before the worker threads need it)

    timing = calibrate(home, args.verbose)
    started = time.monotonic()
    every = max(1, args.cli_every)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        outcomes = list(
            pool.map(lambda i: run_once(i, seed, timing, i % every == 0, home, args.verbose), range(args.runs))
        )
    if all(outcome.ok for outcome in outcomes):
        shutil.rmtree(home, ignore_errors=True)
    passed = sum(outcome.ok for outcome in outcomes)
    phases = Counter(outcome.phase.removesuffix(" (resumed by the CLI)") for outcome in outcomes)
    repairs = Counter(kind for outcome in outcomes for kind in _repair_kinds(outcome.repairs))
    print("kills: " + ", ".join(f"{count} {phase}" for phase, count in phases.most_common()))
    if repairs:
        print("repairs on resume: " + ", ".join(f"{count} {kind}" for kind, count in repairs.most_common()))
    print(
        f"files: none empty or half-written; {sum(o.leftover_temp_files for o in outcomes)} temporary file(s) "
        "left by kills inside a write (the targets were whole)"
    )
    print(f"{passed}/{args.runs} ok ({time.monotonic() - started:.0f} s)")
    return 0 if passed == args.runs else 1


def _repair_kinds(warnings: list[str]) -> list[str]:
    kinds = []
    for warning in warnings:
        if "cut off mid-write" in warning:
            kinds.append("torn line skipped")
        elif "were still running" in warning:
            kinds.append("interrupted tool calls answered")
        else:
            kinds.append("other")
    return kinds


if __name__ == "__main__":
    sys.exit(main())
