"""Runs configured shell hooks with Claude Code's contract, so hooks written for it run unchanged.

Matching hooks run in parallel (an identical command once), each in its own process group with a timeout that
kills the whole group; output is capped; every failure is reported — a hook never fails silently.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli.config.child_env import child_environment
from agentcli.hooks.config import ConfiguredHook, matcher_matches

OUTPUT_CAP = 64 * 1024


@dataclass
class HookResult:
    hook: ConfiguredHook
    exit_code: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    output: dict[str, Any] | None = None
    """The parsed JSON output (exit 0 with stdout starting with ``{``)."""
    error: str | None = None
    """Why this hook counts as failed (non-blocking), in words for the user."""

    @property
    def blocking_message(self) -> str | None:
        """Exit 2 (stderr), or JSON ``decision: "block"`` (reason): the message that blocks."""
        if self.exit_code == 2:
            return self.stderr.strip() or "blocked by hook (exit 2, no message)"
        if self.output and self.output.get("decision") == "block":
            return str(self.output.get("reason") or "blocked by hook")
        return None

    def summary(self) -> dict[str, Any]:
        return {
            "command": self.hook.label,
            "source": self.hook.source,
            "exit_code": self.exit_code,
            "duration_ms": int(self.duration_s * 1000),
            "timed_out": self.timed_out,
            "error": self.error,
            "stdout": self.stdout,
            "stderr": self.stderr,
        }


@dataclass
class HookOutcome:
    """What every hook run for one event said, combined."""

    event: str
    results: list[HookResult] = field(default_factory=list)

    def _outputs(self) -> list[dict[str, Any]]:
        return [r.output for r in self.results if r.output]

    @property
    def prevent_continuation(self) -> bool:
        return any(output.get("continue") is False for output in self._outputs())

    @property
    def stop_reason(self) -> str | None:
        for output in self._outputs():
            if output.get("continue") is False:
                return str(output.get("stopReason") or "Stopped by hook")
        return None

    @property
    def blocking(self) -> list[tuple[str, str]]:
        """``(command, message)`` for each hook that blocked."""
        return [(r.hook.label, msg) for r in self.results if (msg := r.blocking_message) is not None]

    @property
    def errors(self) -> list[str]:
        return [f"{r.hook.label}: {r.error}" for r in self.results if r.error]

    @property
    def system_messages(self) -> list[str]:
        return [str(o["systemMessage"]) for o in self._outputs() if o.get("systemMessage")]

    def _specific(self) -> list[dict[str, Any]]:
        return [o["hookSpecificOutput"] for o in self._outputs() if isinstance(o.get("hookSpecificOutput"), dict)]

    @property
    def additional_context(self) -> list[str]:
        """Context for the model: ``additionalContext``, and plain stdout where the event takes it."""
        context = [str(s["additionalContext"]) for s in self._specific() if s.get("additionalContext")]
        if self.event in ("UserPromptSubmit", "SessionStart"):
            context += [
                r.stdout.strip() for r in self.results if r.exit_code == 0 and r.output is None and r.stdout.strip()
            ]
        return context

    @property
    def permission_decision(self) -> tuple[str, str] | None:
        """PreToolUse's combined decision: deny beats ask beats allow."""
        found: dict[str, str] = {}
        for specific in self._specific():
            decision = specific.get("permissionDecision")
            if decision in ("allow", "deny", "ask"):
                found.setdefault(decision, str(specific.get("permissionDecisionReason") or ""))
        for output in self._outputs():  # the older top-level spelling: "approve" allows, "block" is handled above
            if output.get("decision") == "approve":
                found.setdefault("allow", str(output.get("reason") or ""))
        for decision in ("deny", "ask", "allow"):
            if decision in found:
                return decision, found[decision]
        return None

    @property
    def updated_input(self) -> dict[str, Any] | None:
        for specific in self._specific():
            if isinstance(specific.get("updatedInput"), dict):
                return dict(specific["updatedInput"])
        return None


HookObserver = Callable[[str, ConfiguredHook, "HookResult | None"], None]
ModelJudge = Callable[[ConfiguredHook, dict[str, Any]], Awaitable[dict[str, Any]]]
"""Runs a ``prompt`` or ``agent`` hook: the hook and its input in, the JSON output a command hook would print out."""


class HookRunner:
    """The session's hooks and what every hook process gets: stdin fields, environment, working directory."""

    def __init__(
        self,
        hooks: list[ConfiguredHook],
        *,
        project_dir: Path,
        session_id: str = "",
        transcript_path: str | None = None,
        permission_mode: str = "default",
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.hooks = hooks
        self.project_dir = project_dir
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.permission_mode = permission_mode
        self.env = dict(env or {})
        self.observer: HookObserver | None = None
        """Told when each hook starts (result None) and ends; a face that reports hook runs sets it."""
        self.command_wrapper: Callable[[str, Path], list[str]] | None = None
        """Turns a hook's command and its cwd into the program to start (the sandbox sets it); None: ``/bin/sh -c``."""
        self.judge: ModelJudge | None = None
        """Runs prompt and agent hooks (set by the bootstrap once there is a model client)."""
        self.current_cwd: Callable[[], Path | None] = lambda: None
        """Where the Bash tool's shell is now: hooks run there and get it as ``cwd``, as in Claude Code."""

    def has(self, event: str) -> bool:
        return any(hook.event == event and hook.note is None for hook in self.hooks)

    def cwd(self) -> Path:
        current = self.current_cwd()
        return current if current is not None and current.is_dir() else self.project_dir

    def matching(self, event: str, value: str | None = None) -> list[ConfiguredHook]:
        seen: set[str] = set()
        out = []
        for hook in self.hooks:
            if hook.event != event or hook.command in seen or hook.note is not None:
                continue
            if event in ("Stop", "SubagentStop", "UserPromptSubmit") or matcher_matches(hook.matcher, value):
                seen.add(hook.command)
                out.append(hook)
        return out

    async def run(self, event: str, fields: dict[str, Any], match_value: str | None = None) -> HookOutcome:
        hooks = self.matching(event, match_value)
        outcome = HookOutcome(event)
        if not hooks:
            return outcome
        payload = {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path or "",
            "cwd": str(self.cwd()),
            "permission_mode": self.permission_mode,
            "hook_event_name": event,
            **fields,
        }
        data = json.dumps(payload, ensure_ascii=False).encode()
        outcome.results = list(await asyncio.gather(*(self._observed(event, hook, data) for hook in hooks)))
        return outcome

    async def _observed(self, event: str, hook: ConfiguredHook, stdin: bytes) -> HookResult:
        if self.observer is not None:
            self.observer(event, hook, None)
        result = await self._run_one(hook, stdin)
        if self.observer is not None:
            self.observer(event, hook, result)
        return result

    async def _run_one(self, hook: ConfiguredHook, stdin: bytes) -> HookResult:
        if hook.callback is not None:
            return await _call_back(hook, stdin, hook.callback)
        if hook.kind != "command":
            judge = self.judge
            if judge is None:
                return HookResult(hook, None, "", "", 0.0, error=f"no model client to run this {hook.kind} hook")
            return await _call_back(hook, stdin, lambda payload: judge(hook, payload))
        env = {
            **child_environment(self.env),
            "CLAUDE_PROJECT_DIR": str(self.project_dir),
            "AGENTCLI_PROJECT_DIR": str(self.project_dir),
            "CLAUDE_CODE_SESSION_ID": self.session_id,
            "CLAUDECODE": "1",
            "CLAUDE_CODE_ENTRYPOINT": "cli",
        }
        if hook.plugin_root:
            env["CLAUDE_PLUGIN_ROOT"] = hook.plugin_root
        started = time.monotonic()
        try:
            cwd = self.cwd()
            argv = self.command_wrapper(hook.command, cwd) if self.command_wrapper else ["/bin/sh", "-c", hook.command]
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=cwd,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            return HookResult(hook, None, "", "", time.monotonic() - started, error=f"could not start: {exc}")
        timed_out = False
        try:
            stdout, stderr = await asyncio.wait_for(self._communicate(process, stdin), hook.timeout_s)
        except TimeoutError:
            timed_out = True
            _kill_group(process)
            await process.wait()
            stdout, stderr = b"", b""
        except asyncio.CancelledError:
            _kill_group(process)
            raise
        result = HookResult(
            hook,
            process.returncode,
            stdout.decode(errors="replace"),
            stderr.decode(errors="replace"),
            time.monotonic() - started,
            timed_out,
        )
        _judge(result)
        return result

    @staticmethod
    async def _communicate(process: asyncio.subprocess.Process, stdin: bytes) -> tuple[bytes, bytes]:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        try:
            process.stdin.write(stdin)
            await process.stdin.drain()
            process.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the hook did not read its input; that is its business
        out, err = await asyncio.gather(_read_capped(process.stdout), _read_capped(process.stderr))
        await process.wait()
        return out, err


async def _call_back(
    hook: ConfiguredHook, stdin: bytes, call: Callable[[dict[str, Any]], Awaitable[Any]]
) -> HookResult:
    """A hook that is a function (a driving program's callback, a prompt hook): its answer is the JSON output a
    command hook would print."""
    started = time.monotonic()
    try:
        output = await asyncio.wait_for(call(json.loads(stdin)), hook.timeout_s)
    except TimeoutError:
        return HookResult(
            hook,
            None,
            "",
            "",
            time.monotonic() - started,
            timed_out=True,
            error=f"timed out after {hook.timeout_s:g} s",
        )
    except Exception as exc:
        return HookResult(hook, None, "", "", time.monotonic() - started, error=f"failed: {exc}")
    text = json.dumps(output, ensure_ascii=False)
    return HookResult(
        hook, 0, text, "", time.monotonic() - started, output=output if isinstance(output, dict) else None
    )


async def _read_capped(stream: asyncio.StreamReader) -> bytes:
    kept = bytearray()
    dropped = 0
    while chunk := await stream.read(65536):
        room = OUTPUT_CAP - len(kept)
        kept += chunk[:room]
        dropped += max(0, len(chunk) - room)
    if dropped:
        kept += f"\n… [{dropped} more bytes not shown]".encode()
    return bytes(kept)


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _judge(result: HookResult) -> None:
    """Decide how the hook did: parse JSON output, and name every way it failed."""
    if result.timed_out:
        result.error = f"timed out after {result.hook.timeout_s:g} s and was killed"
        return
    code = result.exit_code
    if code == 0:
        text = result.stdout.strip()
        if text.startswith("{"):
            try:
                parsed = json.loads(text)
            except ValueError as exc:
                result.error = f"printed output that is not valid JSON ({exc}); it was ignored"
                return
            if isinstance(parsed, dict):
                result.output = parsed
        return
    if code == 2:
        return
    if code == 127:
        result.error = f"command not found (exit 127) — this hook is broken: {result.stderr.strip()[:200]}"
        return
    first = result.stderr.strip().splitlines()[0] if result.stderr.strip() else "no error output"
    result.error = f"exited with status {code}: {first}"
