"""Per-run cost and cost per item: billed time with a provider's increments and minimum, a
cloud run's cost, a desktop run's marginal and fully-loaded cost, cost per batch item (seed
004's metric) and per processed item.

Pure Python, with :mod:`app.costing.model`'s conventions (units in names, 365-day years).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.costing.model import (
    DAYS_PER_YEAR,
    SECONDS_PER_HOUR,
    CloudRate,
    Desktop,
    Usage,
    _finite_positive,
    _require,
    electricity_cost_usd,
)


def billed_seconds(runtime_s: float, increment_s: float | None, minimum_s: float | None) -> float:
    """Seconds the provider bills for a run of ``runtime_s`` seconds.

    ``max(minimum_s, ceil(runtime_s / increment_s) x increment_s)``; with no increment the
    runtime itself (continuous billing), with no minimum no floor.
    """
    _finite_positive(runtime_s, "runtime_s")
    billed = runtime_s
    if increment_s:
        billed = math.ceil(runtime_s / increment_s - 1e-9) * increment_s
    if minimum_s:
        billed = max(billed, minimum_s)
    return billed


@dataclass(frozen=True)
class CloudRun:
    """Cost of one run on a cloud option.

    Attributes:
        runtime_s: wall-clock runtime, s.
        billed_s: billed time after increment and minimum, s.
        cost_usd: ``billed_s / 3600 x price_usd_per_hour``, USD.
        compute_units: compute units burnt (Colab), or None.
    """

    runtime_s: float
    billed_s: float
    cost_usd: float
    compute_units: float | None


def cloud_run_cost(runtime_s: float, rate: CloudRate) -> CloudRun:
    """One run on a cloud option: ``billed_seconds / 3600 x price_usd_per_hour`` USD.

    Seed 004 (Paperspace, 2022): "single run cost = time in seconds converted to hours,
    multiplied by the cost per hour", e.g. EfficientNet on A6000: 627 s x $1.89/h = $0.33.
    Monthly fees are not part of a single run's marginal cost.
    """
    billed = billed_seconds(runtime_s, rate.billing_increment_s, rate.billing_minimum_s)
    hours = billed / SECONDS_PER_HOUR
    units = hours * rate.compute_units_per_hour if rate.compute_units_per_hour else None
    return CloudRun(runtime_s, billed, hours * rate.price_usd_per_hour, units)


@dataclass(frozen=True)
class DesktopRun:
    """Cost of one run on a desktop.

    Attributes:
        runtime_s: runtime, s.
        energy_kwh: ``busy_power_w x runtime_h / 1000``, kWh.
        marginal_cost_usd: electricity only, ``energy_kwh x price``, USD.
        amortized_purchase_usd: the share of the purchase net of resale this run uses,
            ``max(0, upfront_usd - resale_usd) x runtime_h / (lifetime_years x 8760 h x
            utilization)``, USD.
        fully_loaded_cost_usd: marginal + amortized, USD.
    """

    runtime_s: float
    energy_kwh: float
    marginal_cost_usd: float
    amortized_purchase_usd: float

    @property
    def fully_loaded_cost_usd(self) -> float:
        return self.marginal_cost_usd + self.amortized_purchase_usd


def desktop_run_cost(
    runtime_s: float, desktop: Desktop, usage: Usage, electricity_price_usd_per_kwh: float
) -> DesktopRun:
    """One run on a desktop: electricity (marginal) plus the purchase spread over the busy
    hours of its lifetime (fully loaded). See :class:`DesktopRun` for the formulas."""
    _finite_positive(runtime_s, "runtime_s")
    hours = runtime_s / SECONDS_PER_HOUR
    energy = desktop.busy_power_w * hours / 1000.0
    busy_hours_in_life = desktop.lifetime_years * DAYS_PER_YEAR * usage.busy_hours_per_day
    amortized = max(0.0, desktop.upfront_usd - desktop.resale_usd) * hours / busy_hours_in_life
    return DesktopRun(
        runtime_s=runtime_s,
        energy_kwh=energy,
        marginal_cost_usd=electricity_cost_usd(energy, electricity_price_usd_per_kwh),
        amortized_purchase_usd=amortized,
    )


def cost_per_batch_item_usd(price_usd_per_hour: float, max_batch_size: int) -> float:
    """Seed 004's "cost per batch item", USD per item per hour: ``price_usd_per_hour /
    max_batch_size``. It ranks how much data one paid hour can hold at once, not what an
    item costs to process; see :func:`cost_per_item_usd` for that."""
    _finite_positive(price_usd_per_hour, "price_usd_per_hour", allow_zero=True)
    _require(max_batch_size >= 1, "max_batch_size must be >= 1", "max_batch_size")
    return price_usd_per_hour / max_batch_size


def cost_per_item_usd(run_cost_usd: float, items: int) -> float:
    """Cost of processing one item, USD: ``run_cost_usd / items``."""
    _require(items >= 1, "items must be >= 1", "items")
    return run_cost_usd / items
