"""Recompute the Amazon street prices in ``app/data/curated/gpus.csv`` from a clone of
United-Compute/gpu-price-tracker (gpucost issue 32 part 5).

Usage: ``python scripts/street_prices_from_tracker.py PATH_TO_CLONE [FILE_STEM ...]``

For each ``data/<FILE_STEM>.json`` it finds the newest commit where the file held prices (the
files at the repository's head are empty) and prints the median of the observations in the 30
days to the last one, the window's range and size, and the commit: the figures each
``price_street_source`` quotes. Prints, writes nothing.
"""

from __future__ import annotations

import datetime as dt
import json
import statistics
import subprocess
import sys

STEMS = (
    "NVIDIA_GeForce_RTX_4090",
    "NVIDIA_GeForce_RTX_5090",
    "NVIDIA_GeForce_RTX_5080",
    "NVIDIA_GeForce_RTX_4080_SUPER",
    "NVIDIA_GeForce_RTX_3090",
    "NVIDIA_L4",
    "NVIDIA_L40S",
    "NVIDIA_RTX_6000_Ada_Generation",
    "NVIDIA_H100_PCIe_80_GB",
    "NVIDIA_H100_PCIe_96_GB",
)
WINDOW = dt.timedelta(days=30)


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True).stdout


def window(repo: str, stem: str) -> str:
    """One line: stem, median USD, last day, observations, min, max, commit."""
    path = f"data/{stem}.json"
    for commit in _git(repo, "log", "--format=%H", "--", path).split():
        prices = json.loads(_git(repo, "show", f"{commit}:{path}") or "{}").get("prices") or {}
        if not prices:
            continue
        points = sorted((dt.date.fromisoformat(k[:10]), float(v)) for k, v in prices.items())
        last = points[-1][0]
        recent = [v for day, v in points if day > last - WINDOW]
        return (
            f"{stem}: median ${statistics.median(recent):,.2f} of {len(recent)} in the 30 days "
            f"to {last} (${min(recent):,.2f}-${max(recent):,.2f}), commit {commit[:12]}"
        )
    return f"{stem}: never priced"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    for stem in argv[1:] or STEMS:
        print(window(argv[0], stem))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
