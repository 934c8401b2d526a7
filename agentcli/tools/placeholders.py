"""The session's placeholders: made before a sandboxed command needs them, removed after the last one ends.

Several sandboxed commands may run at once (background shells, hooks, a foreground command), and each one's mount
on a placeholder only holds while the placeholder exists: removing it under a running sandbox would let that
sandbox create the protected name. So placeholders stay while any sandboxed command of the session runs. Commands
started through :meth:`Placeholders.hold` with ``tracked`` report their end; the others (hooks, ``!`` commands,
started by callers that only get a command line) are found by the session's token in a running bwrap's command
line.
"""

from __future__ import annotations

import atexit
import os
import threading

from agentcli.tools.protected import Made, Mount, Survey, make, remove


class Placeholders:
    def __init__(self, token: str) -> None:
        self.token = token
        """Marks this session's sandboxes in their command lines."""
        self._lock = threading.Lock()
        self._made: dict[str, Made] = {}
        self._leases = 0
        self._untracked = False
        self._registered = False

    @property
    def standing(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._made)

    def hold(self, found: Survey, *, tracked: bool) -> list[Mount]:
        """The mounts for one command: the protected paths that exist, and a placeholder for each that does not
        (made now). Raises OSError naming the path when one can be neither found nor made."""
        with self._lock:
            mounts = list(found.mounts)
            for missing in found.missing:
                made = make(missing)
                if made is not None:
                    self._made[made.path] = made
                elif not os.path.lexists(missing.path):
                    raise OSError(f"the sandbox cannot keep {missing.path} from being created (it cannot be made)")
                mounts.append(Mount(os.path.realpath(missing.path)))
            if tracked:
                self._leases += 1
            else:
                self._untracked = True
            if self._made and not self._registered:
                self._registered = True
                atexit.register(self.tidy)
        return mounts

    def release(self) -> None:
        """A tracked command has ended."""
        with self._lock:
            self._leases = max(0, self._leases - 1)
        self.tidy()

    def tidy(self) -> None:
        """Remove the placeholders once no sandboxed command of the session runs."""
        with self._lock:
            if not self._made or self._leases:
                return
            if self._untracked and self._running():
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
