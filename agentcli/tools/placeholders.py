"""The session's placeholders: made before a sandboxed command needs them, removed after the last one ends.

Several sandboxed commands may run at once (background shells, hooks, a foreground command), and each one's mount
on a placeholder only holds while the placeholder exists: removing it under a running sandbox would let that
sandbox create the protected name. So placeholders stay while any sandboxed command of the session runs. Commands
started through :meth:`Placeholders.hold` with ``tracked`` report their end; the others (hooks, ``!`` commands,
started by callers that only get a command line) are found by the session's token in a running bwrap's command
line.

They go a moment (``IDLE_S``) after the last one ended, in a thread of their own: commands in a row reuse them
(making and removing a folder costs milliseconds on some file systems), and no command waits for the cleanup.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from collections.abc import Callable

from agentcli.tools.protected import Made, Mount, Survey, make, remove

IDLE_S = 1.0
"""How long after the last sandboxed command the placeholders go (they stand again for the next one)."""
START_GRACE_S = 10.0
"""An untracked command is looked for only this long after its command line was made: time for it to start."""


class Placeholders:
    def __init__(self, token: str) -> None:
        self.token = token
        """Marks this session's sandboxes in their command lines."""
        self._lock = threading.Lock()
        self._made: dict[str, Made] = {}
        self._leases = 0
        self._untracked = False
        self._untracked_at = 0.0
        self._registered = False
        self._generation = 0
        """Counts holds: a cleanup scheduled before the latest one is stale."""
        self._wake = threading.Condition(self._lock)
        self._deadline: float | None = None
        self._scheduled = 0
        """The generation the pending cleanup was scheduled at."""
        self._worker: threading.Thread | None = None

    @property
    def standing(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._made)

    def hold(self, surveying: Callable[[frozenset[str]], Survey], *, tracked: bool) -> list[Mount]:
        """The mounts for one command: the protected paths that exist (``surveying`` finds them, given the standing
        placeholders; under the lock, so none goes meanwhile), and a placeholder for each that does not (made now).
        Raises OSError naming the path when one can be neither found nor made."""
        with self._lock:
            found = surveying(frozenset(self._made))
            mounts = list(found.mounts)
            for missing in found.missing:
                made = make(missing)
                if made is not None:
                    self._made[made.path] = made
                elif not os.path.lexists(missing.path):
                    raise OSError(f"the sandbox cannot keep {missing.path} from being created (it cannot be made)")
                mounts.append(Mount(os.path.realpath(missing.path)))
            self._generation += 1
            if tracked:
                self._leases += 1
            else:
                self._untracked = True
                self._untracked_at = time.monotonic()
                self._schedule()
            if self._made and not self._registered:
                self._registered = True
                atexit.register(self.tidy)
        return mounts

    def release(self) -> None:
        """A tracked command has ended."""
        with self._lock:
            self._leases = max(0, self._leases - 1)
            if not self._leases:
                self._schedule()

    def _schedule(self) -> None:
        """Clean up after ``IDLE_S`` unless another command starts meanwhile (called with the lock held). One
        worker thread for the session waits for the moment: starting a thread per command would make each wait
        for the scheduler on a busy machine."""
        if not self._made:
            return
        self._deadline = time.monotonic() + IDLE_S
        self._scheduled = self._generation
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="agentcli-placeholders", daemon=True)
            self._worker.start()
        else:
            self._wake.notify()

    def _work(self) -> None:
        with self._lock:
            while True:
                if self._deadline is None:
                    self._wake.wait()
                    continue
                remaining = self._deadline - time.monotonic()
                if remaining > 0:
                    self._wake.wait(remaining)
                    continue
                self._deadline = None
                if self._scheduled == self._generation:
                    self._tidy(grace=True)

    def tidy(self) -> None:
        """Remove the placeholders now if no sandboxed command of the session runs (at exit, and on request: no
        grace for an untracked command still starting)."""
        with self._lock:
            self._tidy(grace=False)

    def _tidy(self, *, grace: bool) -> None:
        if not self._made or self._leases:
            return
        starting = grace and time.monotonic() - self._untracked_at < START_GRACE_S
        if self._untracked and (starting or self._running()):
            self._schedule()  # a hook or ``!`` command may still run: look again later
            return
        self._untracked = False
        for made in self._made.values():
            remove(made)
        self._made.clear()

    def _running(self) -> bool:
        """Whether a process with this session's token in its command line runs (an untracked sandbox)."""
        marker = self.token.encode()
        try:
            names = os.listdir("/proc")
        except OSError:
            return True
        for name in names:
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/cmdline", "rb") as handle:
                    if marker in handle.read():
                        return True
            except OSError:
                continue
        return False
