"""Print the depreciation curves' fit and error by resale class (for docs/model.md): the
observations used and left out, the fitted ``r(a) = exp(-(a / scale)^shape)``, its error
(root-mean-square of ln r; median and 90th-percentile absolute error of r) and its value at
1, 3, 5 and 8 years, beside the plain exponential fitted to the same points.

Usage: ``python scripts/resale_fit_report.py [--database-url sqlite:///./gpucost.db]`` (a
migrated and seeded database; `make db` makes one).
"""

from __future__ import annotations

import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.catalog.sources.resale import resale_observations  # noqa: E402
from app.costing import ownership as own  # noqa: E402
from scripts.catalog_arg import catalog_from_args  # noqa: E402


def _errors(curve: own.DepreciationCurve) -> tuple[float, float]:
    errs = sorted(abs(r - curve.value_at(a)) for a, r in curve.points)
    return statistics.median(errs), errs[int(0.9 * (len(errs) - 1))]


def main() -> None:
    view = catalog_from_args(__doc__)
    observed = resale_observations()
    left = [o for o in observed if o.excluded]
    print(f"{len(observed)} observations; {len(left)} left out of the fit:")
    for why in sorted({o.excluded or "" for o in left}):
        print(f"- {why}: {sum(o.excluded == why for o in left)}")
    print()
    print(
        "| class | n | scale (y) | shape | rmse ln r | median abs err r | p90 abs err r |"
        " r(1) | r(3) | r(5) | r(8) | exponential k/y | its rmse ln r |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for cls, (curve, _) in sorted(view.curves.items(), key=lambda kv: str(kv[0])):
        med, p90 = _errors(curve)
        pts = curve.points
        k = sum(a * -math.log(r) for a, r in pts) / sum(a * a for a, _ in pts)
        exp_rmse = math.sqrt(statistics.fmean((math.log(r) + k * a) ** 2 for a, r in pts))
        values = " | ".join(f"{curve.value_at(a):.2f}" for a in (1, 3, 5, 8))
        print(
            f"| {cls or 'all'} | {len(pts)} | {curve.scale_years:.2f} | {curve.shape:.2f} | "
            f"{curve.rmse_log:.3f} | {med:.3f} | {p90:.3f} | {values} | {k:.3f} | {exp_rmse:.3f} |"
        )


if __name__ == "__main__":
    main()
