"""Read schemas of the whole-cost-of-owning reference data: memory presets, multi-GPU scaling
presets, exchange rates and embodied-carbon factors (each with its source)."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, Field


class MemoryPresetPublic(BaseModel):
    """A workload's minimum GPU memory (seed 001), at 32-bit and at 16-bit."""

    id: str = Field(description="Preset id, e.g. `transformers`.")
    label: str = Field(description="What the preset stands for.")
    min_memory_gb: float = Field(description="Memory needed at 32-bit, GB (seed 001).")
    min_memory_gb_fp16: float = Field(
        description="Memory needed at 16-bit, GB: x 8/12 (seed 002: 8 GB at 16-bit ~ 12 GB)."
    )
    source: str = Field(description="Where the figure comes from.")


class MemoryPresetsPublic(BaseModel):
    data: list[MemoryPresetPublic] = Field(description="Every memory preset.")
    count: int = Field(description="Number of presets.")


class ScalingPresetPublic(BaseModel):
    """A multi-GPU scaling preset: Amdahl's law anchored on one of the seeds' speed-ups."""

    id: str = Field(description="Preset id: `tuned` (default), `common`, `linear`.")
    anchor_gpu_count: int = Field(description="GPU count of the anchoring speed-up.")
    anchor_speedup: float = Field(description="Speed-up on `anchor_gpu_count` GPUs.")
    parallel_fraction: float = Field(
        description="Amdahl fraction p = (1 - 1/S) / (1 - 1/n) from the anchor."
    )
    speedup_2_gpus: float = Field(description="Predicted speed-up on 2 GPUs.")
    speedup_4_gpus: float = Field(description="Predicted speed-up on 4 GPUs.")
    speedup_8_gpus: float = Field(description="Predicted speed-up on 8 GPUs.")
    is_default: bool = Field(description="Whether requests use it when they name none.")
    source: str = Field(description="Where the anchor comes from.")


class ScalingPresetsPublic(BaseModel):
    data: list[ScalingPresetPublic] = Field(description="Every scaling preset.")
    count: int = Field(description="Number of presets.")


class FxRatePublic(BaseModel):
    """A dated exchange rate in the catalog."""

    currency: str = Field(description="ISO 4217 code.")
    usd_per_unit: float = Field(description="USD per unit of `currency`.")
    as_of: dt.date = Field(description="End of the rate's period.")
    source: str = Field(description="Where the rate comes from.")


class FxRatesPublic(BaseModel):
    data: list[FxRatePublic] = Field(description="Every dated rate, oldest first per currency.")
    count: int = Field(description="Number of rates.")


class EmbodiedFactorPublic(BaseModel):
    """Manufacturing emissions of one piece of hardware, with the source's uncertainty."""

    part: str = Field(description="`gpu` (one card) or `desktop` (the machine without GPUs).")
    co2e_kg: float = Field(description="Central estimate, kg CO2e.")
    relative_sd: float = Field(description="One standard deviation as a fraction of `co2e_kg`.")
    low_co2e_kg: float = Field(description="`co2e_kg x (1 - relative_sd)`, kg CO2e.")
    high_co2e_kg: float = Field(description="`co2e_kg x (1 + relative_sd)`, kg CO2e.")
    lifetime_years: float = Field(description="Life it is amortized over by default, years.")
    source: str = Field(description="Where the figure comes from.")
    as_of: dt.date = Field(description="Day the source was read.")


class EmbodiedFactorsPublic(BaseModel):
    data: list[EmbodiedFactorPublic] = Field(description="Every embodied-carbon factor.")
    count: int = Field(description="Number of factors.")
