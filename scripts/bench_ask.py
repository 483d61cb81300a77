"""``gpucost ask`` on a terminal (gpucost issue 45): how long does a question take, whole
process, start to exit? Targets on an idle machine: in process <= 0.8 s, as a thin HTTP client
of a running service (``GPUCOST_URL``) <= 0.3 s.

On a new migrated and seeded SQLite database, times each question ``--runs`` times:
- ``in process, snapshot``: the usual case, a catalog snapshot of this revision and day on
  file (app/catalog/snapshot.py);
- ``in process, first``: the first ask of a revision (snapshot removed before each run: the
  catalog read from the database, then filed);
- ``thin``: ``GPUCOST_URL`` set to a running service (one worker);
- ``libraries only``: ``python -c "import numpy, pydantic_settings"``, the floor a Python
  process that answers in process cannot go under.
Prints the median and max of each, against the targets.

    make bench-ask        (or: python scripts/bench_ask.py [--runs 7])
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.loadlib import BIN, fresh_sqlite, start_server  # noqa: E402

QUESTIONS = (
    "break-even for 3090 at 15% util",
    "cheapest spot h100",
    "carbon of a 3090 at 15% util for a year",
    "tokens per second for llama 8b on a 4090",
)
TARGET_IN_PROCESS_S = 0.8
TARGET_THIN_S = 0.3


def _time(cmd: list[str], env: dict[str, str], before: object = None) -> float:
    if callable(before):
        before()
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{cmd} exited {done.returncode}: {done.stderr[-2000:]}")
    return took


def _row(label: str, times: list[float], target: float | None) -> str:
    med = statistics.median(times)
    verdict = (
        "" if target is None else f"  target {target:.1f} s: {'met' if med <= target else 'MISSED'}"
    )
    return f"{label:44s} median {med:6.3f} s  max {max(times):6.3f} s  ({len(times)} runs){verdict}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    env = fresh_sqlite()
    folder = Path(tempfile.mkdtemp(prefix="gpucost-snapshots-"))
    env = {k: v for k, v in env.items() if k != "GPUCOST_URL"}
    env["GPUCOST_SNAPSHOT_DIR"] = str(folder)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's Python keeps its bytecode cache
    ask = [str(BIN / "gpucost"), "ask"]
    floor = [str(BIN / "python"), "-c", "import numpy, pydantic_settings"]
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; {args.runs} runs each")
    _time(floor, env)  # warm the page cache
    print(_row("libraries only", [_time(floor, env) for _ in range(args.runs)], None))
    for q in QUESTIONS:
        print(f"\n{q!r}")
        _time([*ask, q], env)  # files the snapshot (and compiles the bytecode)
        snap = [_time([*ask, q], env) for _ in range(args.runs)]
        print(_row("  in process, snapshot", snap, TARGET_IN_PROCESS_S))

        def clear() -> None:
            shutil.rmtree(folder, ignore_errors=True)

        first = [_time([*ask, q], env, clear) for _ in range(max(3, args.runs // 2))]
        print(_row("  in process, first ask", first, None))
    shutil.rmtree(folder, ignore_errors=True)
    # The service is started after: its catalog poller is not running beside the in-process
    # runs (an idle machine, as the target says).
    server = start_server(env)
    try:
        thin_env = {**env, "GPUCOST_URL": server.base}
        print()
        for q in QUESTIONS:
            thin = [_time([*ask, q], thin_env) for _ in range(args.runs)]
            print(_row(f"thin (GPUCOST_URL): {q[:24]!r}", thin, TARGET_THIN_S))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
