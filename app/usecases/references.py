"""The reference lists the catalog router serves: the model's memory and scaling presets and
the catalog's dated exchange rates and embodied-carbon factors, each with its source."""

from __future__ import annotations

from dataclasses import asdict
from functools import lru_cache

from app import costing
from app.catalog.view import CatalogView
from app.costing import ownership as own
from app.models.ownership import (
    EmbodiedFactorPublic,
    EmbodiedFactorsPublic,
    FxRatePublic,
    FxRatesPublic,
    MemoryPresetPublic,
    MemoryPresetsPublic,
    ScalingPresetPublic,
    ScalingPresetsPublic,
)


@lru_cache(maxsize=1)
def memory_presets() -> MemoryPresetsPublic:
    """``/v1/memory-presets``: every preset at 32-bit and 16-bit."""
    rows = [
        MemoryPresetPublic(
            **asdict(p),
            min_memory_gb_fp16=round(own.required_memory_gb(p.min_memory_gb, "fp16"), 4),
        )
        for p in own.MEMORY_PRESETS.values()
    ]
    return MemoryPresetsPublic(data=rows, count=len(rows))


@lru_cache(maxsize=1)
def scaling_models() -> ScalingPresetsPublic:
    """``/v1/scaling-models``: every preset with its predicted speed-ups on 2, 4 and 8 GPUs."""
    rows = [
        ScalingPresetPublic(
            **asdict(p),
            parallel_fraction=round(p.parallel_fraction, 6),
            speedup_2_gpus=round(costing.speedup(2, p.parallel_fraction), 4),
            speedup_4_gpus=round(costing.speedup(4, p.parallel_fraction), 4),
            speedup_8_gpus=round(costing.speedup(8, p.parallel_fraction), 4),
            is_default=p.id == own.DEFAULT_SCALING,
        )
        for p in own.SCALING_PRESETS.values()
    ]
    return ScalingPresetsPublic(data=rows, count=len(rows))


def fx_rates(view: CatalogView) -> FxRatesPublic:
    """``/v1/fx-rates``: every dated rate, oldest first per currency."""
    rows = [
        FxRatePublic(
            currency=r.currency, usd_per_unit=r.usd_per_unit, as_of=r.as_of, source=r.source
        )
        for rates in view.fx_rates.values()
        for r in rates
        if r.as_of is not None and r.source is not None  # every rate but USD's own
    ]
    return FxRatesPublic(data=rows, count=len(rows))


def embodied_carbon(view: CatalogView) -> EmbodiedFactorsPublic:
    """``/v1/embodied-carbon``: every factor with its one-sigma range."""
    rows = [
        EmbodiedFactorPublic(
            part=part,
            co2e_kg=row.co2e_kg,
            relative_sd=row.relative_sd,
            low_co2e_kg=round(row.co2e_kg * (1 - row.relative_sd), 4),
            high_co2e_kg=round(row.co2e_kg * (1 + row.relative_sd), 4),
            lifetime_years=row.lifetime_years,
            source=row.source,
            as_of=row.as_of,
        )
        for part, row in view.embodied.items()
    ]
    return EmbodiedFactorsPublic(data=rows, count=len(rows))
