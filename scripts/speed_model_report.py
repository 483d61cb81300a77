"""Print the speed model's calibration against the catalog's measured pairs: its weights,
its leave-one-pair-out error by generation, and for the pairs the README tracks, the ratio
gpucost uses, its basis and the published figures beside it.

Usage: ``python scripts/speed_model_report.py [--database-url sqlite:///./gpucost.db]``
(a migrated and seeded database; `make db` makes one). Prints Markdown tables for the README.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.steps.speed import speed, speed_evidence  # noqa: E402
from scripts.catalog_arg import catalog_from_args  # noqa: E402

PAIRS = [
    ("rtx-4090", "h100-sxm"),
    ("rtx-5090", "a100-sxm4-80gb"),
    ("tesla-t4", "a100-40gb"),
    ("a100-sxm4-80gb", "h100-sxm"),
    ("h100-sxm", "b200"),
]


def main() -> None:
    view = catalog_from_args(__doc__)
    ev = speed_evidence(view)
    m = ev.model
    print(
        f"model: bandwidth^{m.w_bandwidth:.3f} x matmul^{m.w_matmul:.3f} x "
        f"consumer e^{m.w_consumer:.3f}; ridge {m.ridge:g}; {m.pairs} pairs; "
        f"LOO median {m.loo_median_error:.1%}, p90 {m.loo_p90_error:.1%}"
    )
    print("offsets:", ", ".join(f"{a} {o:+.3f}" for a, o in m.w_architecture))
    print("\n| generation (newer GPU of the pair) | measured pairs | leave-one-out median error |")
    print("|---|---|---|")
    for gen, n, med in m.loo_by_generation:
        print(f"| {gen} | {n} | {med:.1%} |")
    recent = m.loo_median_for({"Ada Lovelace", "Hopper", "Blackwell"})
    print(f"| Ada, Hopper and Blackwell together | - | {recent:.1%} |" if recent else "")
    print("\n| pair | gpucost: B's speed / A's | basis | error band | published figures (B / A) |")
    print("|---|---|---|---|---|")
    for a, b in PAIRS:
        ga, gb = view.gpu(a), view.gpu(b)
        assert ga is not None and gb is not None, (a, b)
        ratio = speed(ev, ga, 1, gb, 1)
        published = sorted(1 / r for _, r, _ in ev.measured(a, b))
        est = ev.estimate(ga, 1, gb, 1, 1.0)
        band = f"+/-{ratio.error_band:.0%}" if ratio.error_band is not None else "-"
        shown = ", ".join(f"{x:.2f}" for x in published) or "none"
        print(
            f"| {ga.name} vs {gb.name} | {1 / ratio.time_factor:.2f} | {ratio.basis} | {band} "
            f"| {shown} (estimate alone: {1 / est.time_factor:.2f}) |"
        )


if __name__ == "__main__":
    main()
