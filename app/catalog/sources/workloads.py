"""Desktop barebones, utilization profiles and benchmarks (seed 001's and seed 004's)."""

from __future__ import annotations

from app.catalog.sources.files import (
    CURATED,
    PAPERSPACE_2022_AS_OF,
    PAPERSPACE_2022_SOURCE,
    Row,
    find_table,
    opt_float,
    or_none,
    read_csv,
    seed_tables,
    typed,
)
from app.catalog.sources.offers import paperspace_seed_gpu


def load_barebones() -> list[Row]:
    """Barebones (everything but the GPUs), with price and base power: desktops, and rack
    servers (``kind`` ``server``) whose PSUs are sized for their GPUs."""
    return [
        typed(
            r,
            id=str,
            name=str,
            kind=str,
            gpu_slots=int,
            price_usd=float,
            base_power_w=float,
            idle_power_w=opt_float,
            psu_efficiency=opt_float,
            notes=or_none,
        )
        for r in read_csv(CURATED / "barebones.csv")
    ]


def load_utilization_profiles() -> list[Row]:
    """Utilization profiles (seed 001) plus always-on."""
    return [
        typed(r, id=str, name=str, utilization=float, description=str)
        for r in read_csv(CURATED / "utilization_profiles.csv")
    ]


BENCHMARKS = {
    "yolor": (
        "YOLOR inference",
        "YOLOR inference",
        None,
        "yolor_csp_x, img-size 1280, conf 0.25 (inference)",
    ),
    "stylegan_xl": (
        "StyleGAN_XL training",
        "StyleGAN_XL train",
        "StyleGAN_XL max batch",
        "stylegan3-t, pokemon256, batch 8, kimg 5 (training)",
    ),
    "efficientnet": (
        "EfficientNet training",
        "EfficientNet train",
        "EfficientNet max batch",
        "tiny-imagenet-200 (64x64), 1 epoch, Adam lr 1e-3 (training)",
    ),
}


def load_benchmarks() -> tuple[list[Row], list[Row]]:
    """The seed's three Paperspace workloads and their per-GPU results.

    Returns (benchmarks, results); a result has ``seconds`` (None when the run ran out of
    memory), ``oom`` and ``max_batch_size`` (None where the post gives none).
    """
    times = find_table(seed_tables(), "GPU", "YOLOR inference", "StyleGAN_XL train")
    batches = {r["GPU"]: r for r in find_table(seed_tables(), "GPU", "StyleGAN_XL max batch")}
    benchmarks = [
        {
            "id": bid,
            "name": name,
            "settings": settings,
            "source": PAPERSPACE_2022_SOURCE,
            "as_of": PAPERSPACE_2022_AS_OF,
        }
        for bid, (name, _, _, settings) in BENCHMARKS.items()
    ]
    results = []
    for r in times:
        gpu_id = paperspace_seed_gpu(r["GPU"])
        for bid, (_, time_col, batch_col, _) in BENCHMARKS.items():
            cell = r[time_col]
            oom = cell.upper().startswith("OOM")
            results.append(
                {
                    "id": f"{bid}-{gpu_id}",
                    "benchmark_id": bid,
                    "gpu_id": gpu_id,
                    "gpu_count": 1,
                    "seconds": None if oom else float(cell),
                    "oom": oom,
                    "max_batch_size": int(batches[r["GPU"]][batch_col]) if batch_col else None,
                    "source": PAPERSPACE_2022_SOURCE,
                    "as_of": PAPERSPACE_2022_AS_OF,
                }
            )
    return benchmarks, results
