"""Process start → first request for ``agentcli -p``, against the floor ``python -c "import anthropic"``.

Both are measured in the same run, interleaved, as whole processes. The first-request time is when the fake
server received the request (same clock: time.monotonic on one machine).
Target: agentcli ≤ 1.1x the floor.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time

from _common import PYTHON, answering_server, median, table, time_import_anthropic


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    server, env = answering_server()
    floor: list[float] = []
    import_only: list[float] = []
    first_request: list[float] = []
    whole: list[float] = []
    with tempfile.TemporaryDirectory() as cwd:
        for _ in range(args.runs):
            floor.append(time_import_anthropic(env))
            start = time.monotonic()
            subprocess.run([PYTHON, "-c", "import anthropic, os; os._exit(0)"], check=True, env=env)
            import_only.append(time.monotonic() - start)

            seen = len(server.requests)
            start = time.monotonic()
            subprocess.run(
                [PYTHON, "-m", "agentcli", "-p", "hi"], check=True, env=env, cwd=cwd, stdout=subprocess.DEVNULL
            )
            end = time.monotonic()
            first_request.append(server.requests[seen].time - start)
            whole.append(end - start)
    server.stop()
    base = median(floor)
    print(f"runs: {args.runs} (interleaved)")
    print(
        table(
            [
                ('python -c "import anthropic"', base, "floor"),
                ("the same, skipping interpreter teardown", median(import_only), "the import alone"),
                ("agentcli -p: start → first request", median(first_request), "target ≤ 1.10x"),
                ("agentcli -p: whole run", median(whole), "one short answer, process exit included"),
            ],
            base,
        )
    )


if __name__ == "__main__":
    main()
