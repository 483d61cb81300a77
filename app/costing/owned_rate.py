"""The fully-loaded cost of one GPU-hour on hardware a lab already owns (or will buy): the
purchase net of resale spread over the busy hours it will actually serve, the electricity
those hours draw (idle power included, charged to the busy hours), and any yearly overhead
(hosting, administration) spread the same way.

This is the amortization rule of :func:`app.costing.desktop_run_cost` (a run's share of the
purchase is its share of the machine's busy hours over its life) expressed per GPU-hour, so
an owned GPU can be priced in tools that otherwise price it at $0 (SkyPilot's Kubernetes
``pricing.accelerators``, OpenCost's custom ``GPU`` price).

Pure Python, with :mod:`app.costing.model`'s conventions (units in names, 365-day years).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from app.costing.model import (
    DAYS_PER_YEAR,
    Desktop,
    Usage,
    _finite_positive,
    _require,
    desktop_energy_kwh_per_day,
    electricity_cost_usd,
)


@dataclass(frozen=True)
class OwnedRate:
    """What one GPU-hour of an owned machine costs, USD, and the hours it is spread over.

    Attributes:
        gpu_hours_per_year: busy GPU-hours a year, ``gpu_count x utilization x 8,760 h``.
        capex_usd_per_gpu_hour: ``max(0, upfront_usd - resale_usd) / (lifetime_years x
            gpu_hours_per_year)``: the purchase net of resale over the GPU-hours of its life.
        electricity_usd_per_gpu_hour: a year's electricity (busy and powered-on idle hours)
            over ``gpu_hours_per_year``.
        overhead_usd_per_gpu_hour: ``overhead_usd_per_year / gpu_hours_per_year``.
    """

    gpu_hours_per_year: float
    capex_usd_per_gpu_hour: float
    electricity_usd_per_gpu_hour: float
    overhead_usd_per_gpu_hour: float

    @property
    def cost_usd_per_gpu_hour(self) -> float:
        """The fully-loaded rate: capex + electricity + overhead per GPU-hour, USD."""
        return (
            self.capex_usd_per_gpu_hour
            + self.electricity_usd_per_gpu_hour
            + self.overhead_usd_per_gpu_hour
        )

    @property
    def cost_usd_per_year(self) -> float:
        """What the machine costs a year at that rate, USD: rate x GPU-hours a year."""
        return self.cost_usd_per_gpu_hour * self.gpu_hours_per_year


def owned_rate(
    desktop: Desktop,
    usage: Usage,
    electricity_price_usd_per_kwh: float,
    overhead_usd_per_year: float = 0.0,
) -> OwnedRate:
    """The fully-loaded cost per GPU-hour of ``desktop`` used at ``usage``: see
    :class:`OwnedRate` for the formulas. ``desktop.lifetime_years`` is the holding period and
    ``desktop.resale_usd`` what the machine sells for at its end.

    Seed 001 (Tim Dettmers, 2020-09-07): a $2,200 desktop, 350 W GPU + 100 W CPU, $0.12/kWh,
    busy 15 % of the time, kept 5 years (IRS Publication 946's recovery period) and not
    resold: 2200 / (5 x 8760 x 0.15) + 0.45 kW x 0.12 = $0.3349 + $0.054 = $0.3889 per
    GPU-hour. Raises :class:`InvalidInput` for a negative or non-finite overhead."""
    _finite_positive(overhead_usd_per_year, "overhead_usd_per_year", allow_zero=True)
    _finite_positive(electricity_price_usd_per_kwh, "electricity_price_usd_per_kwh",
                     allow_zero=True)  # fmt: skip
    gpu_hours = usage.busy_hours_per_day * DAYS_PER_YEAR * desktop.gpu_count
    net_purchase = max(0.0, desktop.upfront_usd - desktop.resale_usd)
    energy_year = desktop_energy_kwh_per_day(desktop, usage) * DAYS_PER_YEAR
    electricity_year = electricity_cost_usd(energy_year, electricity_price_usd_per_kwh)
    return OwnedRate(
        gpu_hours_per_year=gpu_hours,
        capex_usd_per_gpu_hour=net_purchase / (desktop.lifetime_years * gpu_hours),
        electricity_usd_per_gpu_hour=electricity_year / gpu_hours,
        overhead_usd_per_gpu_hour=overhead_usd_per_year / gpu_hours,
    )


def pooled_rate(rates: Iterable[tuple[OwnedRate, int]]) -> OwnedRate:
    """One rate for several machines of the same GPU (``(rate, machines)`` pairs): each part
    is the pool's yearly cost over the pool's GPU-hours, so a machine busier than another
    weighs more, as it serves more of the hours billed. Raises :class:`InvalidInput` for an
    empty pool or a count below 1."""
    items = list(rates)
    _require(bool(items) and all(n >= 1 for _, n in items), "a pool needs machines", "machines")
    hours = math.fsum(r.gpu_hours_per_year * n for r, n in items)

    def per_hour(part: str) -> float:
        return math.fsum(getattr(r, part) * r.gpu_hours_per_year * n for r, n in items) / hours

    return OwnedRate(
        gpu_hours_per_year=hours,
        capex_usd_per_gpu_hour=per_hour("capex_usd_per_gpu_hour"),
        electricity_usd_per_gpu_hour=per_hour("electricity_usd_per_gpu_hour"),
        overhead_usd_per_gpu_hour=per_hour("overhead_usd_per_gpu_hour"),
    )
