"""Run the fake Messages API as a process, for end-to-end tests of the CLI and for offline demos.

    python -m agentcli.testing.fake_api --scenario FILE [--port 0] [--log FILE]

The first line on stdout is the bound port number alone; the server then runs until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType

from agentcli.testing.server import FakeAnthropicServer


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m agentcli.testing.fake_api", description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", required=True, help="scenario JSON file, or the name of a bundled one (demo)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1; 0 picks a free one")
    parser.add_argument("--log", default=None, help="append one JSON line per request to this file")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Serve until told to stop; exit status 0 on a clean shutdown."""
    args = _parse_args(argv)
    done = threading.Event()

    def _on_signal(signum: int, frame: FrameType | None) -> None:
        done.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    try:
        server = FakeAnthropicServer(args.scenario, log_path=args.log, port=args.port).start()
    except (OSError, ValueError) as exc:
        print(f"fake_api: cannot start: {exc}", file=sys.stderr)
        return 2
    try:
        print(server.port, flush=True)
        while not done.wait(0.5):
            pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
