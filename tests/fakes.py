"""A small in-memory catalog view for testing resolution steps directly (cosmicpython's
fakes): a handful of rows built with the view's own :func:`~app.catalog.view.assemble`, no
database. Every figure is seed 001's (``../shared/reference/seed-facts.md``) or a round
number a test states as its own input."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from app.catalog.sources.reference import load_embodied_factors, load_reference_values
from app.catalog.view import CatalogView, assemble
from app.models import (
    Barebone,
    CloudOffer,
    EmbodiedFactor,
    Gpu,
    ReferenceValue,
    Region,
    UtilizationProfile,
)

SEED_DAY = dt.date(2020, 9, 7)
SEED = "seed 001 (Tim Dettmers, 2020-09-07)"
WORLD_G_PER_KWH = 475.0  # IEA 2019 world average, as the catalog's `world` region


def _dated(**row: Any) -> dict[str, Any]:
    return {"source": SEED, "as_of": SEED_DAY, **row}


def gpu(gpu_id: str, tdp_w: float, memory_gb: float, **extra: Any) -> Gpu:
    """A GPU row (NVIDIA, consumer PCIe unless ``extra`` says otherwise)."""
    fields = dict(
        id=gpu_id,
        name=gpu_id,
        vendor="NVIDIA",
        architecture="Ampere",
        form_factor="consumer_pcie",
        memory_gb=memory_gb,
        tdp_w=tdp_w,
    )
    return Gpu(**_dated(**{**fields, **extra}))


def offer(offer_id: str, provider: str, gpu_id: str, price: str, **extra: Any) -> CloudOffer:
    """A one-GPU on-demand offer at ``price`` USD/h unless ``extra`` says otherwise."""
    fields = dict(
        id=offer_id,
        provider=provider,
        instance_type=offer_id,
        gpu_id=gpu_id,
        gpu_count=1,
        pricing_model="on_demand",
        price_usd_per_hour=Decimal(price),
    )
    return CloudOffer(**_dated(**{**fields, **extra}))


def view(offers: list[CloudOffer] | None = None) -> CatalogView:
    """Seed 001's world: an RTX 3090 (350 W, 24 GB, $1,499 launch price), a V100 (300 W,
    16 GB), the 2-GPU barebone ($701, 100 W), the seed's AWS V100 spot offer ($2.14/h), the
    `phd-desktop` profile (15 %), the `world` grid, and the shipped catalog's embodied-carbon
    factors and reference values (read from its sources); ``offers`` add to them."""
    gpus = [
        gpu("rtx-3090", 350, 24, price_new_usd=1499.0, memory_bandwidth_gb_per_s=936.0),
        gpu("v100-16gb", 300, 16, form_factor="sxm", memory_bandwidth_gb_per_s=900.0),
    ]
    barebone = Barebone(
        **_dated(
            id="barebone-2gpu-dettmers-2020",
            name="2-GPU barebone",
            gpu_slots=2,
            base_power_w=100.0,
            price_usd=Decimal("701"),
        )
    )
    seed_offer = offer("aws-v100-spot-seed", "aws", "v100-16gb", "2.14", pricing_model="spot")
    world = Region(
        **_dated(
            id="world",
            name="World",
            kind="world",
            carbon_intensity_g_per_kwh=WORLD_G_PER_KWH,
            carbon_source="IEA 2019 via Green Algorithms",
            carbon_as_of=dt.date(2025, 2, 5),
        )
    )
    phd = UtilizationProfile(
        **_dated(id="phd-desktop", name="PhD desktop", utilization=0.15, description="< 15 %")
    )
    return assemble(
        revision=1,
        as_of=None,
        gpus=gpus,
        offers=[seed_offer, *(offers or [])],
        barebones=[barebone],
        regions={"world": world},
        providers={},
        benchmark_results={},
        profiles={"phd-desktop": phd},
        benchmarks={},
        colab_plans={},
        fx_rates={},
        embodied={r["id"]: EmbodiedFactor(**r) for r in load_embodied_factors()},
        reference={r["id"]: ReferenceValue(**r) for r in load_reference_values()},
        history={},
        published={},
    )
