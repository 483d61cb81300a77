"""Vectorised forms of the cost model: every option in the catalog at once, and grids of
break-even days over utilization and electricity price.

NumPy only; no FastAPI, no database. The formulas are the scalar model's
(:mod:`app.costing.model`), applied element-wise; tests check the two agree. Units are in the
names, as everywhere: ``_usd``, ``_h``, ``_w``, ``_kwh``, ``_per_month``.

Conventions shared with the scalar model: a month is 365 / 12 days, a day 24 hours; a cloud
bill for a month is ``monthly_fee_usd + max(0, billed_hours - included_hours) x
price_usd_per_hour``; a desktop's running cost is its wall energy times the electricity price.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.costing.model import (
    COMMITTED_HOURS_PER_MONTH,
    DAYS_PER_MONTH,
    HOURS_PER_DAY,
    HOURS_PER_MONTH,
    CloudRate,
    Desktop,
    _finite_positive,
    _require,
)

# --------------------------------------------------------------------------------------------
# Spot and interruptible capacity
# --------------------------------------------------------------------------------------------

DALY_2006 = (
    "J. T. Daly, 'A higher order estimate of the optimum checkpoint interval for restart dumps', "
    "Future Generation Computer Systems 22(3):303-312, 2006: expected wall time per interval of "
    "useful work tau with exponential interruptions of mean M, restart R and checkpoint write "
    "delta is M e^(R/M) (e^((tau+delta)/M) - 1)"
)


@dataclass(frozen=True)
class InterruptionRisk:
    """How often spot capacity is taken back, and how the job protects itself.

    Attributes:
        interruptions_per_hour: expected interruptions per hour of running, 1/h (> 0). A
            provider's "frequency of interruption" per month divides by 730 h.
        checkpoint_interval_h: useful work between checkpoints, h (> 0). Work since the last
            checkpoint is lost on an interruption and re-done.
        restart_overhead_h: time to get a new instance and reload the checkpoint, h (>= 0).
        checkpoint_write_h: time to write one checkpoint, h (>= 0).
    """

    interruptions_per_hour: float
    checkpoint_interval_h: float
    restart_overhead_h: float = 0.0
    checkpoint_write_h: float = 0.0

    def __post_init__(self) -> None:
        _finite_positive(self.interruptions_per_hour, "interruptions_per_hour")
        _finite_positive(self.checkpoint_interval_h, "checkpoint_interval_h")
        _finite_positive(self.restart_overhead_h, "restart_overhead_h", allow_zero=True)
        _finite_positive(self.checkpoint_write_h, "checkpoint_write_h", allow_zero=True)

    @property
    def time_factor(self) -> float:
        """Expected billed hours per hour of useful work (>= 1), from Daly (2006):
        ``M e^(R/M) (e^((tau + delta)/M) - 1) / tau`` with ``M = 1 / interruptions_per_hour``.

        For small ``tau / M`` this is about ``1 + delta/tau + (tau/2 + R) / M``: half an interval
        of work lost, plus the restart, per interruption. Infinity when ``(tau + delta + R) / M``
        exceeds 50 (over 5e21 billed hours per useful hour: the job practically never
        finishes)."""
        m = 1.0 / self.interruptions_per_hour
        tau, r, delta = self.checkpoint_interval_h, self.restart_overhead_h, self.checkpoint_write_h
        if (tau + delta + r) / m > 50:
            return math.inf
        return m * math.exp(r / m) * math.expm1((tau + delta) / m) / tau


# --------------------------------------------------------------------------------------------
# Every option at once
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Options:
    """The options to rank, one element per option (all arrays the same length).

    Attributes:
        is_desktop: True for a desktop to buy, False for a cloud offer.
        price_usd_per_hour: cloud price of the whole instance, USD/h (0 for desktops).
        monthly_fee_usd: plan or subscription fee, USD/month (0 for desktops).
        included_hours_per_month: busy hours the fee already pays for (Colab plans), h.
        billing_increment_h / billing_minimum_h: cloud billing rounding, h (0 = none).
        upfront_usd: purchase price, USD (0 for cloud offers).
        power_w: desktop busy wall power, or cloud GPU power (TDP x count) as IT power, W.
        pue: datacenter PUE (>= 1) for cloud; 1 for a desktop.
        carbon_intensity_g_per_kwh: grid intensity where the option runs, gCO2e/kWh.
        time_factor: hours this option needs per hour of the reference's work (NaN = unknown,
            e.g. the workload does not fit).
        overhead_factor: expected billed hours per useful hour (spot interruptions), >= 1.
        max_batch_size: largest batch the option holds, items (0 = unknown).
        launch_overhead_h: with runs, billed hours per run that do no work (boot, setup),
            added before billing rounds the run; None = 0 (desktops: 0).
        commitment_term_months: a committed-use offer's term, months (0 = pay as you go;
            None = no option is committed). A commitment bills ``monthly_fee_usd`` per
            committed instance (``ceil(billed / 730 h)``, at least one) for every month of
            the horizon and, when the horizon is shorter, of the rest of its term.
    """

    is_desktop: np.ndarray
    price_usd_per_hour: np.ndarray
    monthly_fee_usd: np.ndarray
    included_hours_per_month: np.ndarray
    billing_increment_h: np.ndarray
    billing_minimum_h: np.ndarray
    upfront_usd: np.ndarray
    power_w: np.ndarray
    pue: np.ndarray
    carbon_intensity_g_per_kwh: np.ndarray
    time_factor: np.ndarray
    overhead_factor: np.ndarray
    max_batch_size: np.ndarray
    commitment_term_months: np.ndarray | None = None
    launch_overhead_h: np.ndarray | None = None


@dataclass(frozen=True)
class Workload:
    """How much work, in hours of the reference option's time.

    Attributes:
        reference_hours_per_month: busy hours per month the work takes on the reference, h (> 0).
        run_hours: one run's time on the reference, h; None for a GPU-hours workload (no runs,
            billed as continuous sessions).
        horizon_months: months over which totals are taken (> 0).
        electricity_price_usd_per_kwh: what a desktop pays for electricity, USD/kWh.
    """

    reference_hours_per_month: float
    run_hours: float | None
    horizon_months: float
    electricity_price_usd_per_kwh: float

    def __post_init__(self) -> None:
        _finite_positive(self.reference_hours_per_month, "reference_hours_per_month")
        if self.run_hours is not None:
            _finite_positive(self.run_hours, "run_hours")
        _finite_positive(self.horizon_months, "horizon_months")
        _finite_positive(
            self.electricity_price_usd_per_kwh, "electricity_price_usd_per_kwh", allow_zero=True
        )

    @property
    def runs_per_month(self) -> float | None:
        """Runs per month, ``reference_hours_per_month / run_hours``; None without runs."""
        return None if self.run_hours is None else self.reference_hours_per_month / self.run_hours


@dataclass(frozen=True)
class Costs:
    """Per-option results (arrays aligned with :class:`Options`; NaN where unknown).

    Attributes:
        busy_hours_per_month: hours the option runs per month, interruptions included, h.
        cost_usd_per_month: cloud bill, or desktop electricity, USD/month.
        total_cost_usd: ``upfront_usd + cost_usd_per_month x horizon_months``, USD; a
            commitment's months are ``max(horizon_months, term)`` (the term is owed).
        run_cost_usd: one run's marginal cost: cloud billed run time x price x overhead (seed
            004), desktop electricity; NaN without runs.
        cost_per_run_usd: ``total_cost_usd / runs over the horizon``: fees and purchase included.
        effective_usd_per_hour: cloud price, or a desktop's or commitment's ``total_cost_usd
            / busy hours``, USD/h.
        cost_per_batch_item_usd: seed 004, ``effective_usd_per_hour / max_batch_size``.
        energy_kwh: ``power_w x busy hours / 1000 x pue`` over the horizon, kWh.
        co2e_kg: ``energy_kwh x carbon_intensity_g_per_kwh / 1000``, kg CO2e.
        break_even_days: desktops only: ``upfront_usd / (best cloud per day - desktop per
            day)`` against ``best_cloud`` (NaN = never, or not a desktop).
        instances: how many instances (cloud) or machines (desktop) the work needs: one
            runs at most 730 h a month, so ``max(1, ceil(busy hours per month / 730))``;
            desktops are bought, and fees and commitments paid, that many times.
        over_capacity: options whose work needs more than one instance or machine.
        best_cloud: index of the first cloud option in ``order`` (the cheapest costed one
            not ranked later), or -1.
        order: indices of costed options, those not ranked later first, each group cheapest
            total first (ties: less CO2e, then index).
    """

    busy_hours_per_month: np.ndarray
    cost_usd_per_month: np.ndarray
    total_cost_usd: np.ndarray
    run_cost_usd: np.ndarray
    cost_per_run_usd: np.ndarray
    effective_usd_per_hour: np.ndarray
    cost_per_batch_item_usd: np.ndarray
    energy_kwh: np.ndarray
    co2e_kg: np.ndarray
    break_even_days: np.ndarray
    over_capacity: np.ndarray
    best_cloud: int
    instances: np.ndarray
    order: np.ndarray


def billed_hours(run_h: np.ndarray, increment_h: np.ndarray, minimum_h: np.ndarray) -> np.ndarray:
    """Element-wise :func:`app.costing.run_cost.billed_seconds` in hours: ``max(minimum,
    ceil(run / increment) x increment)``; 0 means no increment or no minimum."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rounded = np.where(
            increment_h > 0, np.ceil(run_h / increment_h - 1e-9) * increment_h, run_h
        )
    out: np.ndarray = np.maximum(rounded, minimum_h)
    return out


def rank(opts: Options, work: Workload, later: np.ndarray | None = None) -> Costs:
    """Cost every option for the same work and rank them by total cost over the horizon;
    options marked in ``later`` (capacity that can be taken back: spot, interruptible,
    Colab's plans) rank after all others, each group cheapest first, and are never the
    ``best_cloud`` a desktop's break-even is measured against while another cloud is costed.

    For option i with time factor f and overhead o (both per hour of reference work):
    busy hours per month ``W x f x o``; with runs, billed hours per month
    ``runs x billed(run_h x f) x o`` (billing rounds each run); work needs ``n = max(1,
    ceil(busy / 730))`` instances or machines; a cloud month costs ``n x fee + max(0, billed
    - n x included) x price`` (a commitment: :func:`committed_bill`); a desktop costs ``n x
    upfront`` and a month ``power_w x busy / 1000 x electricity price``. See :class:`Costs`
    for the rest.
    """
    w, horizon = work.reference_hours_per_month, work.horizon_months
    desk = opts.is_desktop
    tf = opts.time_factor
    busy = w * tf * opts.overhead_factor
    with np.errstate(invalid="ignore"):
        n = np.maximum(1.0, np.ceil(np.nan_to_num(busy, nan=0.0) / HOURS_PER_MONTH - 1e-9))
    runs = work.runs_per_month  # None exactly when run_hours is
    run_h, billed_run, billed = _billed(opts, work, busy)
    energy_month = opts.power_w * busy / 1000.0 * opts.pue
    elec = work.electricity_price_usd_per_kwh
    term = (
        np.zeros(desk.shape) if opts.commitment_term_months is None else opts.commitment_term_months
    )
    fixed = term > 0
    # Both branches are computed for every row; a row's unbounded hours (a fuzzed workload)
    # times the other branch's zero fee is NaN there and discarded by the where.
    with np.errstate(invalid="ignore"):
        cloud_month = np.where(
            fixed,
            committed_bill(billed, opts.monthly_fee_usd),
            n * opts.monthly_fee_usd
            + np.maximum(0.0, billed - n * opts.included_hours_per_month) * opts.price_usd_per_hour,
        )
    month = np.where(desk, energy_month * elec, cloud_month)
    over = n > 1
    upfront = n * opts.upfront_usd
    paid_months = np.where(fixed, np.maximum(horizon, term), horizon)
    total = upfront + month * paid_months
    energy = energy_month * horizon
    co2e = energy * opts.carbon_intensity_g_per_kwh / 1000.0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        busy_total = busy * horizon
        effective = np.where(desk | fixed, total / busy_total, opts.price_usd_per_hour)
        per_batch = np.where(opts.max_batch_size > 0, effective / opts.max_batch_size, np.nan)
        if run_h is not None and billed_run is not None and runs is not None:
            runs_total = runs * horizon
            run_cost = np.where(
                desk,
                opts.power_w * run_h * opts.overhead_factor / 1000.0 * elec,
                billed_run * opts.overhead_factor * opts.price_usd_per_hour,
            )
            per_run = total / runs_total
        else:
            run_cost = per_run = np.full(tf.shape, np.nan)

    costed = np.isfinite(total)
    last = np.zeros(desk.shape, bool) if later is None else later
    best_cloud, be = _against_best_cloud(desk, costed, total, month, upfront, last)
    idx = np.flatnonzero(costed)
    order = idx[np.lexsort((idx, co2e[idx], total[idx], last[idx]))]
    return Costs(
        busy_hours_per_month=busy,
        cost_usd_per_month=month,
        total_cost_usd=total,
        run_cost_usd=run_cost,
        cost_per_run_usd=per_run,
        effective_usd_per_hour=effective,
        cost_per_batch_item_usd=per_batch,
        energy_kwh=energy,
        co2e_kg=co2e,
        break_even_days=be,
        over_capacity=over,
        best_cloud=best_cloud,
        order=order,
        instances=n,
    )


def _billed(
    opts: Options, work: Workload, busy: np.ndarray
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray]:
    """``(run hours, one run's billed hours, billed hours a month)`` per option: with runs,
    each run rounded by its billing increment and minimum (alone: seed 004's run cost; a
    month's runs with their launch overhead) x the interruption overhead; without runs,
    the busy hours (run hours and billed run None)."""
    runs = work.runs_per_month
    if work.run_hours is None or runs is None:
        return None, None, busy
    run_h = work.run_hours * opts.time_factor
    launch = 0.0 if opts.launch_overhead_h is None else opts.launch_overhead_h
    billed_run = billed_hours(run_h, opts.billing_increment_h, opts.billing_minimum_h)
    launched = billed_hours(run_h + launch, opts.billing_increment_h, opts.billing_minimum_h)
    return run_h, billed_run, runs * launched * opts.overhead_factor


def committed_bill(hours_per_month: np.ndarray, monthly_fee_usd: np.ndarray | float) -> np.ndarray:
    """A commitment's bill a month, USD: ``max(1, ceil(hours / 730))`` committed instances
    x the monthly fee (one instance runs at most 730 h a month; the vector form of
    :func:`app.costing.model.committed_instances`)."""
    instances = np.maximum(1.0, np.ceil(hours_per_month / COMMITTED_HOURS_PER_MONTH - 1e-9))
    bill: np.ndarray = instances * monthly_fee_usd
    return bill


def _against_best_cloud(
    desk: np.ndarray,
    costed: np.ndarray,
    total: np.ndarray,
    month: np.ndarray,
    upfront: np.ndarray,
    later: np.ndarray,
) -> tuple[int, np.ndarray]:
    """The cheapest costed cloud option not ranked ``later`` (else the cheapest of those;
    index, -1 for none) and each costed desktop's break-even days against it (``upfront /
    saving per day``; NaN when it never pays)."""
    cloud_ok = costed & ~desk
    be = np.full(total.shape, np.nan)
    if not cloud_ok.any():
        return -1, be
    if (cloud_ok & ~later).any():
        cloud_ok = cloud_ok & ~later
    cloud_idx = np.flatnonzero(cloud_ok)
    best = int(cloud_idx[np.argmin(total[cloud_idx])])
    saving_per_day = (month[best] - month) / DAYS_PER_MONTH
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        be = np.where(desk & costed & (saving_per_day > 0), upfront / saving_per_day, np.nan)
    return best, be


# --------------------------------------------------------------------------------------------
# Break-even over a grid of utilization and electricity price
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BreakEvenGrid:
    """Break-even over utilization (columns) and electricity price (rows).

    Attributes:
        days: ``[price, utilization]`` break-even days; NaN where the desktop never pays back.
        desktop_total_usd: desktop cost (purchase + electricity) after ``horizon_days``, USD.
        cloud_total_usd: cloud cost after ``horizon_days`` per utilization, USD.
    """

    days: np.ndarray
    desktop_total_usd: np.ndarray
    cloud_total_usd: np.ndarray


def break_even_grid(
    desktop: Desktop,
    cloud: CloudRate,
    utilizations: np.ndarray,
    electricity_prices_usd_per_kwh: np.ndarray,
    *,
    idle_on_fraction: float = 0.0,
    cloud_time_factor: float = 1.0,
    horizon_days: float = 365.0,
) -> BreakEvenGrid:
    """:func:`app.costing.model.break_even` at every (price, utilization) pair at once.

    ``days = upfront_usd / (cloud_usd_per_day(u) - desktop_kwh_per_day(u) x price)`` where the
    denominator is positive. Utilizations must be in (0, 1], prices >= 0, both finite.
    """
    u = np.asarray(utilizations, dtype=float)
    p = np.asarray(electricity_prices_usd_per_kwh, dtype=float)
    _require(
        u.ndim == 1 and u.size > 0 and bool(np.all(np.isfinite(u) & (u > 0) & (u <= 1))),
        "utilizations must be in (0, 1]",
        "utilizations",
    )
    _require(
        p.ndim == 1 and p.size > 0 and bool(np.all(np.isfinite(p) & (p >= 0))),
        "electricity prices must be finite and >= 0",
        "electricity_prices_usd_per_kwh",
    )
    _finite_positive(cloud_time_factor, "cloud_time_factor")
    _finite_positive(horizon_days, "horizon_days", allow_zero=True)
    busy_h = u * HOURS_PER_DAY
    idle_h = (1.0 - u) * HOURS_PER_DAY * idle_on_fraction
    kwh_day = (desktop.busy_power_w * busy_h + desktop.idle_wall_power_w * idle_h) / 1000.0
    desk_day = np.outer(p, kwh_day)
    cloud_h = busy_h * cloud_time_factor * DAYS_PER_MONTH
    if cloud.commitment_term_months:
        cloud_month = committed_bill(cloud_h, cloud.monthly_fee_usd)
    else:
        cloud_month = cloud.monthly_fee_usd + (
            np.maximum(0.0, cloud_h - cloud.included_hours_per_month) * cloud.price_usd_per_hour
        )
    cloud_day = cloud_month / DAYS_PER_MONTH
    saving = cloud_day[np.newaxis, :] - desk_day
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        days = np.where(saving > 0, desktop.upfront_usd / saving, np.nan)
    days = np.where(np.isfinite(days), days, np.nan)  # a saving too small to pay back
    return BreakEvenGrid(
        days=days,
        desktop_total_usd=desktop.upfront_usd + desk_day * horizon_days,
        cloud_total_usd=cloud_day * horizon_days,
    )
