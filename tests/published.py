"""Published speed ratios straight from the shipped data file
(``app/data/curated/published_speeds.csv``, each row with its source quoted), for tests that
derive an expected speed factor from the measurements rather than from our answers."""

from __future__ import annotations

import csv
from pathlib import Path

CSV = Path(__file__).resolve().parents[1] / "app" / "data" / "curated" / "published_speeds.csv"


def published_time_factors(a: str, b: str, kind: str = "training") -> list[float]:
    """``runtime_b / runtime_a`` (= speed_a / speed_b) from every published comparison of
    ``kind`` that holds both GPUs."""
    by_comparison: dict[str, dict[str, float]] = {}
    with CSV.open(encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["kind"] == kind:
                by_comparison.setdefault(row["comparison"], {})[row["gpu_id"]] = float(
                    row["relative_speed"]
                )
    return [t[a] / t[b] for t in by_comparison.values() if a in t and b in t]
