"""The gpucost cost, energy, break-even and carbon model.

Pure Python: frozen dataclasses and functions over them. No FastAPI, no database, no settings.
Every quantity carries its unit in its name (``_w``, ``_kwh``, ``_usd``, ``_s``, ``_per_hour``...).

Conventions
-----------
* ``utilization`` is the fraction of wall-clock time (24 h a day) the GPU box is busy, 0 < u <= 1.
  Tim Dettmers (seed 001, 2020-09-07) defines it this way: "15 % of the time".
* A year is 365 days, a day 24 hours (seed 001's arithmetic).
* Power figures are wall power unless a PSU efficiency below 1 is given, in which case
  component power (TDP) is divided by it. The seed counts TDP as wall power (efficiency 1.0).
* Functions raise :class:`CostingError` subclasses for inputs that have no meaningful answer;
  they never return NaN or infinity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.costing import defaults
from app.costing.errors import InvalidInput

HOURS_PER_DAY = 24.0
DAYS_PER_YEAR = 365.0
DAYS_PER_MONTH = DAYS_PER_YEAR / 12.0
SECONDS_PER_HOUR = 3600.0
# A month of hours: 8,760 h / 12 = 730 h.
HOURS_PER_MONTH = HOURS_PER_DAY * DAYS_PER_MONTH
# Hours one committed instance covers a month: 8,760 h / 12, the month Google Cloud bills a
# commitment by (its pricing pages and Billing Catalog list monthly = hourly x 730).
COMMITTED_HOURS_PER_MONTH = HOURS_PER_MONTH
# The default amortization lifetime (IRS Publication 946's 5-year recovery for computers).
DEFAULT_LIFETIME_YEARS = defaults.LIFETIME.number


def _require(condition: bool, message: str, field_name: str) -> None:
    if not condition:
        raise InvalidInput(message, field=field_name)


def _finite_positive(value: float, name: str, *, allow_zero: bool = False) -> None:
    ok = math.isfinite(value) and (value >= 0 if allow_zero else value > 0)
    _require(ok, f"{name} must be a finite number {'>= 0' if allow_zero else '> 0'}", name)


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Desktop:
    """A GPU desktop or server the lab would buy.

    Attributes:
        upfront_usd: purchase price of the whole machine, USD (barebone + GPUs).
        gpu_count: number of GPUs in the machine.
        gpu_power_w: power of one GPU while busy, W. Defaults upstream to the GPU's TDP.
        base_power_w: power of everything else (CPU, board, drives) while busy, W.
            Seed 001 uses 100 W for the CPU.
        idle_power_w: wall power of the whole machine while powered on but not busy, W.
            0 means the machine is off when not busy (seed 001's assumption).
        psu_efficiency: AC-to-DC efficiency of the power supply, 0 < e <= 1. 1.0 treats
            component power as wall power, as seed 001 does.
        lifetime_years: years over which the purchase is amortized for fully-loaded per-run
            cost. Default: :data:`app.costing.defaults.LIFETIME` (IRS Publication 946's
            5-year recovery period for computers).
        resale_usd: what the machine sells for at the end of ``lifetime_years``, USD (0 = kept
            to the end, seed 001's assumption); the amortized purchase is ``max(0, upfront_usd -
            resale_usd)`` (used GPUs sold above their price in 2021, so it may exceed it).
    """

    upfront_usd: float
    gpu_power_w: float
    gpu_count: int = 1
    base_power_w: float = defaults.BASE_POWER.number
    idle_power_w: float = defaults.IDLE_POWER.number
    psu_efficiency: float = defaults.PSU_EFFICIENCY.number
    lifetime_years: float = DEFAULT_LIFETIME_YEARS
    resale_usd: float = 0.0

    def __post_init__(self) -> None:
        _finite_positive(self.upfront_usd, "upfront_usd", allow_zero=True)
        _finite_positive(self.resale_usd, "resale_usd", allow_zero=True)
        _finite_positive(self.gpu_power_w, "gpu_power_w", allow_zero=True)
        _require(self.gpu_count >= 1, "gpu_count must be >= 1", "gpu_count")
        _finite_positive(self.base_power_w, "base_power_w", allow_zero=True)
        _finite_positive(self.idle_power_w, "idle_power_w", allow_zero=True)
        _require(
            math.isfinite(self.psu_efficiency) and 0 < self.psu_efficiency <= 1,
            "psu_efficiency must be in (0, 1]",
            "psu_efficiency",
        )
        _finite_positive(self.lifetime_years, "lifetime_years")

    @property
    def busy_power_w(self) -> float:
        """Wall power while busy, W: ``(gpu_count x gpu_power_w + base_power_w) / psu_efficiency``."""
        return (self.gpu_count * self.gpu_power_w + self.base_power_w) / self.psu_efficiency

    @property
    def idle_wall_power_w(self) -> float:
        """Wall power while powered on and idle, W: ``idle_power_w / psu_efficiency``."""
        return self.idle_power_w / self.psu_efficiency


@dataclass(frozen=True)
class CloudRate:
    """How a cloud option bills.

    Attributes:
        price_usd_per_hour: price of the whole instance per hour of use, USD/h.
        monthly_fee_usd: fixed subscription or plan fee per month, USD (Paperspace plans,
            Colab Pro). Charged every month whatever the usage.
        included_compute_units_per_month: compute units the monthly fee already pays for
            (Colab Pro: 100). Usage beyond them is charged at ``price_usd_per_hour``.
        compute_units_per_hour: burn rate in compute units per hour (Colab), for reporting.
        billing_increment_s: the provider rounds billed time up to a multiple of this, s.
            None means billed continuously.
        billing_minimum_s: billed time is at least this, s. None means no minimum.
        commitment_term_months: for a committed-use offer, its term, months; None for
            pay-as-you-go. A commitment bills ``monthly_fee_usd`` a month per committed
            instance whether it runs or not; one instance covers
            :data:`COMMITTED_HOURS_PER_MONTH`, so a month needing more hours commits
            ``ceil(hours / 730)`` instances. ``price_usd_per_hour`` is then the effective
            rate (fee / 730 h), used for a single run.
    """

    price_usd_per_hour: float
    monthly_fee_usd: float = 0.0
    included_compute_units_per_month: float = 0.0
    compute_units_per_hour: float | None = None
    billing_increment_s: float | None = None
    billing_minimum_s: float | None = None
    commitment_term_months: int | None = None

    def __post_init__(self) -> None:
        _finite_positive(self.price_usd_per_hour, "price_usd_per_hour", allow_zero=True)
        _finite_positive(self.monthly_fee_usd, "monthly_fee_usd", allow_zero=True)
        _finite_positive(
            self.included_compute_units_per_month,
            "included_compute_units_per_month",
            allow_zero=True,
        )
        if self.included_compute_units_per_month > 0:
            _require(
                self.compute_units_per_hour is not None and self.compute_units_per_hour > 0,
                "included compute units need a compute_units_per_hour burn rate",
                "compute_units_per_hour",
            )
        for name in ("billing_increment_s", "billing_minimum_s"):
            value = getattr(self, name)
            if value is not None:
                _finite_positive(value, name)

    @property
    def included_hours_per_month(self) -> float:
        """Busy hours per month covered by the plan's included compute units, h."""
        if self.included_compute_units_per_month <= 0 or not self.compute_units_per_hour:
            return 0.0
        return self.included_compute_units_per_month / self.compute_units_per_hour


@dataclass(frozen=True)
class Usage:
    """How much the lab computes.

    Attributes:
        utilization: fraction of wall-clock time the GPUs are busy, 0 < u <= 1.
        idle_on_fraction: fraction of the not-busy time the desktop stays powered on,
            0 <= f <= 1. 0 (default) means it is off whenever it is not busy (seed 001's
            assumption); 1 means always on.
    """

    utilization: float
    idle_on_fraction: float = 0.0

    def __post_init__(self) -> None:
        _require(
            math.isfinite(self.utilization) and 0 < self.utilization <= 1,
            "utilization must be in (0, 1]",
            "utilization",
        )
        _require(
            math.isfinite(self.idle_on_fraction) and 0 <= self.idle_on_fraction <= 1,
            "idle_on_fraction must be in [0, 1]",
            "idle_on_fraction",
        )

    @property
    def busy_hours_per_day(self) -> float:
        """Busy hours per day, h: ``utilization x 24``."""
        return self.utilization * HOURS_PER_DAY

    @property
    def idle_hours_per_day(self) -> float:
        """Powered-on but idle hours per day, h: ``(1 - utilization) x 24 x idle_on_fraction``."""
        return (1.0 - self.utilization) * HOURS_PER_DAY * self.idle_on_fraction


# --------------------------------------------------------------------------------------------
# Energy and running cost
# --------------------------------------------------------------------------------------------


def desktop_energy_kwh_per_day(desktop: Desktop, usage: Usage) -> float:
    """Desktop energy per day, kWh.

    ``busy_power_w x busy_hours_per_day / 1000 + idle_wall_power_w x idle_hours_per_day / 1000``.
    Seed 001: (350 W + 100 W) x 0.15 x 24 h = 1.62 kWh/day, 591 kWh/year.
    """
    busy = desktop.busy_power_w * usage.busy_hours_per_day
    idle = desktop.idle_wall_power_w * usage.idle_hours_per_day
    return (busy + idle) / 1000.0


def energy_kwh(power_w: float, hours: float, pue: float = 1.0) -> float:
    """Energy drawn, kWh: ``power_w x hours / 1000 x pue``.

    ``pue`` (>= 1) adds the datacenter's overhead; 1.0 for a desktop in an office.
    """
    _finite_positive(power_w, "power_w", allow_zero=True)
    _finite_positive(hours, "hours", allow_zero=True)
    _require(math.isfinite(pue) and pue >= 1.0, "pue must be >= 1", "pue")
    return power_w * hours / 1000.0 * pue


def host_power_w(
    vcpus: float, ram_gb: float, w_per_core: float, vcpus_per_core: float, w_per_gb: float
) -> float:
    """A cloud host's busy power, W, Green Algorithms' model: ``vcpus / vcpus_per_core x
    w_per_core + ram_gb x w_per_gb`` (CPU cores at their per-core TDP, memory per GB)."""
    for value, name in ((vcpus, "vcpus"), (ram_gb, "ram_gb"), (w_per_core, "w_per_core"),
                        (w_per_gb, "w_per_gb")):  # fmt: skip
        _finite_positive(value, name, allow_zero=True)
    _finite_positive(vcpus_per_core, "vcpus_per_core")
    return vcpus / vcpus_per_core * w_per_core + ram_gb * w_per_gb


def electricity_cost_usd(energy_kwh: float, price_usd_per_kwh: float) -> float:
    """Electricity cost, USD: ``energy_kwh x price_usd_per_kwh``."""
    _finite_positive(price_usd_per_kwh, "electricity_price_usd_per_kwh", allow_zero=True)
    return energy_kwh * price_usd_per_kwh


def co2e_kg(energy_kwh: float, carbon_intensity_g_per_kwh: float, pue: float = 1.0) -> float:
    """Operational emissions, kg CO2e: ``energy_kwh x pue x carbon_intensity_g_per_kwh / 1000``.

    ``pue`` (power usage effectiveness, >= 1) scales IT energy to facility energy for
    datacenters; use 1.0 for a desktop in an office.
    """
    _finite_positive(carbon_intensity_g_per_kwh, "carbon_intensity_g_per_kwh", allow_zero=True)
    _require(math.isfinite(pue) and pue >= 1.0, "pue must be >= 1", "pue")
    return energy_kwh * pue * carbon_intensity_g_per_kwh / 1000.0


def cloud_cost_usd_per_month(rate: CloudRate, busy_hours_per_month: float) -> float:
    """Cloud bill for a month of use, USD.

    ``monthly_fee_usd + max(0, busy_hours - included_hours) x price_usd_per_hour``, where
    ``included_hours = included_compute_units_per_month / compute_units_per_hour``; for a
    commitment, ``committed_instances(busy_hours) x monthly_fee_usd``.
    """
    if rate.commitment_term_months:
        return committed_instances(busy_hours_per_month) * rate.monthly_fee_usd
    billable_hours = max(0.0, busy_hours_per_month - rate.included_hours_per_month)
    return rate.monthly_fee_usd + billable_hours * rate.price_usd_per_hour


def committed_instances(busy_hours_per_month: float) -> int:
    """Instances a commitment must cover for ``busy_hours_per_month`` hours of work a month:
    ``max(1, ceil(hours / 730))`` (one instance runs at most 730 h a month)."""
    return max(1, math.ceil(busy_hours_per_month / COMMITTED_HOURS_PER_MONTH - 1e-9))


def cloud_cost_usd_per_day(rate: CloudRate, busy_hours_per_day: float) -> float:
    """Average cloud cost per day, USD: the monthly bill (above) / (365 / 12) days."""
    monthly = cloud_cost_usd_per_month(rate, busy_hours_per_day * DAYS_PER_MONTH)
    return monthly / DAYS_PER_MONTH


# --------------------------------------------------------------------------------------------
# Break-even
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SideCost:
    """Running cost of one side of a comparison (per day and per year, USD; energy, kWh)."""

    cost_usd_per_day: float
    energy_kwh_per_day: float | None

    @property
    def cost_usd_per_year(self) -> float:
        return self.cost_usd_per_day * DAYS_PER_YEAR

    @property
    def energy_kwh_per_year(self) -> float | None:
        if self.energy_kwh_per_day is None:
            return None
        return self.energy_kwh_per_day * DAYS_PER_YEAR


@dataclass(frozen=True)
class BreakEven:
    """Result of :func:`break_even`.

    Attributes:
        days: days until buying the desktop is cheaper than renting, or None for "never".
        reason: why ``days`` is None (else None).
        desktop: desktop running cost (electricity only; the purchase is ``upfront_usd``).
        cloud: cloud cost for the same work.
        cloud_busy_hours_per_day: cloud hours needed per day for the desktop's work, h.
        daily_saving_usd: cloud cost per day minus desktop running cost per day, USD.
    """

    days: float | None
    reason: str | None
    desktop: SideCost
    cloud: SideCost
    cloud_busy_hours_per_day: float
    daily_saving_usd: float

    def total_cost_usd(self, upfront_usd: float, days: float) -> tuple[float, float]:
        """Cumulative (desktop, cloud) cost after ``days`` days, USD."""
        return (
            cumulative_cost_usd(upfront_usd, self.desktop.cost_usd_per_day, days),
            cumulative_cost_usd(0.0, self.cloud.cost_usd_per_day, days),
        )


def cumulative_cost_usd(upfront_usd: float, cost_usd_per_day: float, days: float) -> float:
    """Total cost after ``days`` days: ``upfront_usd + cost_usd_per_day x days``, USD.

    Raises :class:`InvalidInput` for a negative or non-finite input.
    """
    _finite_positive(upfront_usd, "upfront_usd", allow_zero=True)
    _finite_positive(cost_usd_per_day, "cost_usd_per_day", allow_zero=True)
    _finite_positive(days, "days", allow_zero=True)
    return upfront_usd + cost_usd_per_day * days


def break_even(
    desktop: Desktop,
    cloud: CloudRate,
    usage: Usage,
    electricity_price_usd_per_kwh: float,
    *,
    cloud_time_factor: float = 1.0,
) -> BreakEven:
    """Days until a desktop purchase pays for itself against renting.

    ``break_even_days = upfront_usd / (cloud_cost_usd_per_day - desktop_cost_usd_per_day)``

    * desktop cost per day = :func:`desktop_energy_kwh_per_day` x electricity price.
    * cloud cost per day = :func:`cloud_cost_usd_per_day` for ``busy_hours_per_day x
      cloud_time_factor`` hours, where ``cloud_time_factor`` is how many cloud hours one desktop
      hour of work takes (1.0 = same speed, seed 001's "similar performance").

    When the cloud is not dearer per day than running the desktop, the desktop never pays for
    itself: ``days`` is None and ``reason`` says why. Seed 001: $2,200, 450 W, $0.12/kWh,
    15 %, $2.14/h -> 2200 / (7.704 - 0.1944) = 292.96 days.
    """
    _finite_positive(cloud_time_factor, "cloud_time_factor")
    desktop_energy = desktop_energy_kwh_per_day(desktop, usage)
    desktop_cost = electricity_cost_usd(desktop_energy, electricity_price_usd_per_kwh)
    cloud_hours = usage.busy_hours_per_day * cloud_time_factor
    cloud_cost = cloud_cost_usd_per_day(cloud, cloud_hours)
    saving = cloud_cost - desktop_cost
    days: float | None
    reason: str | None
    if saving <= 0:
        days = None
        reason = (
            f"the cloud costs ${cloud_cost:.2f}/day, not more than the desktop's "
            f"${desktop_cost:.2f}/day of electricity, so the purchase is never paid back"
        )
    else:
        days = desktop.upfront_usd / saving
        reason = None
    return BreakEven(
        days=days,
        reason=reason,
        desktop=SideCost(desktop_cost, desktop_energy),
        cloud=SideCost(cloud_cost, None),
        cloud_busy_hours_per_day=cloud_hours,
        daily_saving_usd=saving,
    )
