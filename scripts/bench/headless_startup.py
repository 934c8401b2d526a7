"""Process start → first request for ``agentcli -p``, against the floor: a bare client on the same HTTP library
(``httpx2``, which the SDK uses too) that sends one request to the same server and exits.

All are measured in the same run, interleaved, as whole processes; ``python -c "import anthropic"`` is timed too,
for what the first request no longer waits for. The first-request time is when the fake server received the
request (same clock: time.monotonic on one machine). ``--baseline DIR`` adds another source tree (e.g. the
previous commit's checkout) to every round.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

from _common import PYTHON, ROOT, answering_server, median, table, time_import_anthropic

BARE_CLIENT = """
import os, sys, httpx2
httpx2.post(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", content=sys.argv[1],
            headers={"authorization": "Bearer " + os.environ["ANTHROPIC_API_KEY"], "content-type": "application/json"})
os._exit(0)
"""
REQUEST = '{"model":"claude-sonnet-5-5","max_tokens":64,"messages":[{"role":"user","content":"hi"}],"stream":true}'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--baseline", type=Path, help="another agentcli source tree, measured in the same rounds")
    args = parser.parse_args()
    server, env = answering_server()
    trees = {
        "agentcli": ROOT,
        **({f"agentcli @ {args.baseline.name}": args.baseline.resolve()} if args.baseline else {}),
    }
    floor: list[float] = []
    sdk_import: list[float] = []
    first_request: dict[str, list[float]] = {name: [] for name in trees}
    whole: dict[str, list[float]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as cwd:
        for _ in range(args.runs):
            seen = len(server.requests)
            start = time.monotonic()
            subprocess.run([PYTHON, "-c", BARE_CLIENT, REQUEST], check=True, env=env)
            floor.append(server.requests[seen].time - start)
            sdk_import.append(time_import_anthropic(env))
            for name, tree in trees.items():
                seen = len(server.requests)
                start = time.monotonic()
                subprocess.run(
                    [PYTHON, "-m", "agentcli", "-p", "hi"],
                    check=True,
                    env={**env, "PYTHONPATH": str(tree)},
                    cwd=cwd,
                    stdout=subprocess.DEVNULL,
                )
                end = time.monotonic()
                first_request[name].append(server.requests[seen].time - start)
                whole[name].append(end - start)
    server.stop()
    base = median(floor)
    rows = [
        ("bare httpx2 client: start → request", base, "floor"),
        ('python -c "import anthropic"', median(sdk_import), ""),
    ]
    for name in trees:
        rows.append((f"{name} -p: start → first request", median(first_request[name]), ""))
        rows.append((f"{name} -p: whole run", median(whole[name]), "one short answer, process exit included"))
    print(f"runs: {args.runs} (interleaved)")
    print(table(rows, base))


if __name__ == "__main__":
    main()
