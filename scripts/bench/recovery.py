"""How long a turn loses to a stalled or dropped stream: wall time of a faulted turn minus a clean one.

In process, the real SDK against the fake Messages API, default backoff (0.5 s base). The stall watchdog is set
to ``--idle-ms`` (default 2000; users' default is 60000, Claude Code notices a stall after 300 s).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from _common import isolate_home, median, record

from agentcli.api.client import Credentials
from agentcli.bootstrap import SessionOptions, build_engine
from agentcli.testing import FakeAnthropicServer

CONTENT = [{"type": "text", "text": "streamed words " * 20, "chunks": 20}]


async def _turn(fault: dict | None, cwd: Path) -> float:
    turns = [{"content": CONTENT, **({"fault": fault} if fault else {})}, {"content": CONTENT}]
    server = FakeAnthropicServer({"turns": turns}).start()
    engine = build_engine(SessionOptions(cwd=cwd), Credentials(api_key="k", base_url=server.base_url))
    start = time.monotonic()
    try:
        async for message in engine.submit_message("go"):
            if message["type"] == "result":
                assert not message["is_error"], message
        return time.monotonic() - start
    finally:
        await engine.aclose()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--idle-ms", type=int, default=2000)
    args = parser.parse_args()
    isolate_home()
    os.environ["AGENTCLI_STREAM_IDLE_TIMEOUT_MS"] = str(args.idle_ms)
    results: dict[str, list[float]] = {"clean": [], "drop": [], "stall": []}
    faults = {
        "clean": None,
        "drop": {"kind": "drop", "after_events": 8},
        "stall": {"kind": "stall", "after_events": 8, "seconds": 60},
    }
    with tempfile.TemporaryDirectory() as cwd:
        for _ in range(args.runs):
            for name, fault in faults.items():
                results[name].append(asyncio.run(_turn(fault, Path(cwd))))
    clean = median(results["clean"])
    print(f"runs: {args.runs}, stall watchdog {args.idle_ms} ms, backoff base 500 ms ±25 %")
    print(f"clean turn            {clean * 1000:8.1f} ms")
    for name in ("drop", "stall"):
        lost = median(results[name]) - clean
        print(f"{name:<5} recovery time  {lost * 1000:8.1f} ms  (median turn {median(results[name]) * 1000:.1f} ms)")
        record(
            f"time a {name} costs a turn",
            lost * 1000,
            "ms",
            ratio=median(results[name]) / clean,
            note=f"ratio: the faulted turn vs a clean one ({clean * 1000:.0f} ms); watchdog {args.idle_ms} ms",
        )


if __name__ == "__main__":
    main()
