"""Fleet plan, "own the base, rent the peak": how many desktops of which build to buy in which
month, and how many cloud GPU-hours to rent, to meet a monthly demand at the least discounted
cost. Pure: plain values in, plain values out; the mixed-integer programme is solved by
``scipy.optimize.milp`` (HiGHS).

Units: demand and capacity in reference GPU-hours per month; money in USD; power in W.

The programme, for builds ``b`` and months ``t`` (discount factor ``f_t``):

    minimise   sum f_t (C_b x_bt + e_b u_bt) + sum f_t c r_t
    subject to u_bt <= K_b * (units of b bought in the last L months, t included)
               sum_b u_bt + r_t >= d_t
               (optional) total purchases <= budget; units owned <= max machines;
               wall power of units owned <= max power
    x_bt integer >= 0 (units bought at the start of month t), u_bt, r_t >= 0 (GPU-hours).

``C_b`` upfront USD, ``K_b`` GPU-hours a unit can serve per month, ``e_b`` its running cost
per GPU-hour served (electricity), ``L`` its service life in months, ``c`` the cloud's cost
per GPU-hour. Cash is counted at the start of each month.

A build with a monthly fee ``F_b`` (a cloud commitment: no purchase price, billed every month
of its term ``L`` whether used or not) adds ``F_b x (f_t + ... + f_{t+L-1})`` to the cost of
a unit taken on in month ``t``; its term must end within the horizon, and it is not a machine
in the lab (the limits on machines and power do not count it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.costing.errors import InvalidInput


class PlanInfeasible(InvalidInput):
    """No plan meets the demand within the constraints (e.g. desktops only, over budget), or
    the solver found none within its time limit."""


@dataclass(frozen=True)
class PlanBuild:
    """Capacity the plan may take on in units: a desktop build to buy, or a cloud commitment.

    Attributes:
        id: the build's name.
        upfront_usd: purchase price of one unit, USD (>= 0; 0 for a commitment).
        capacity_gpu_hours_per_month: reference GPU-hours one unit can serve a month (> 0).
        cost_usd_per_gpu_hour: running cost per reference GPU-hour served, USD (>= 0).
        power_w: one unit's busy wall power in the lab, W (>= 0; 0 for a commitment).
        life_months: months a unit serves after purchase (>= 1); a commitment's term.
        monthly_fee_usd: fixed cost of one unit for every month of its life, used or not,
            USD (a commitment's monthly bill; 0 for a desktop).
        committed: a commitment: a unit's whole term must end within the horizon (its fees
            are owed to the end), and it is not a machine in the lab (``max_machines`` and
            ``max_power_w`` do not count it).
    """

    id: str
    upfront_usd: float
    capacity_gpu_hours_per_month: float
    cost_usd_per_gpu_hour: float
    power_w: float
    life_months: int
    monthly_fee_usd: float = 0.0
    committed: bool = False


@dataclass(frozen=True)
class PlanLimits:
    """Constraints on the owned fleet (None: no limit): total purchases over the horizon
    (USD), units owned at once, and their busy wall power at once (W, e.g. a room's
    circuit)."""

    budget_usd: float | None = None
    max_machines: int | None = None
    max_power_w: float | None = None


@dataclass(frozen=True)
class PlanProblem:
    """One plan to solve.

    Attributes:
        demand_gpu_hours: reference GPU-hours needed in each month (>= 0), month 0 first.
        builds: the desktop builds on offer (empty: cloud only).
        cloud_usd_per_gpu_hour: the cloud's cost per reference GPU-hour; None = no cloud.
        annual_discount_rate: for the present value, per year (>= 0); month t is discounted
            by ``(1 + rate) ** (-t / 12)``.
        limits: constraints on the owned fleet.
    """

    demand_gpu_hours: tuple[float, ...]
    builds: tuple[PlanBuild, ...]
    cloud_usd_per_gpu_hour: float | None
    annual_discount_rate: float = 0.0
    limits: PlanLimits = PlanLimits()

    def discount(self) -> np.ndarray:
        """Discount factor of each month (start-of-month cash)."""
        t = np.arange(len(self.demand_gpu_hours), dtype=float)
        return (1.0 + self.annual_discount_rate) ** (-t / 12.0)


@dataclass(frozen=True)
class PlanSolution:
    """A plan: per build and month the units bought, owned and the GPU-hours they serve; per
    month the GPU-hours rented and the cash out (USD) for purchases, desktop running costs,
    the cloud's hours and units' fixed fees (commitments); the undiscounted total and the
    present value (USD); whether the solver
    proved it optimal within its time limit and, when it did not, the relative gap between
    the plan's present value and the solver's lower bound on any plan's (``mip_gap``, 0.05 =
    the plan costs at most 5 % more than the best possible)."""

    bought: tuple[tuple[int, ...], ...]
    owned: tuple[tuple[int, ...], ...]
    served_gpu_hours: tuple[tuple[float, ...], ...]
    rented_gpu_hours: tuple[float, ...]
    capex_usd: tuple[float, ...]
    desktop_opex_usd: tuple[float, ...]
    cloud_usd: tuple[float, ...]
    fees_usd: tuple[float, ...]
    total_usd: float
    present_value_usd: float
    optimal: bool = True
    mip_gap: float = 0.0


def owned_units(bought: np.ndarray, life_months: int) -> np.ndarray:
    """Units in service each month from units bought each month (a unit serves the month it
    is bought and ``life_months - 1`` more)."""
    cum = np.cumsum(bought)
    gone = np.concatenate([np.zeros(life_months), cum[:-life_months]])[: len(bought)]
    held: np.ndarray = cum - gone
    return held


def _purchase_caps(p: PlanProblem) -> np.ndarray:
    """Most units of each build worth taking on in each month (builds x months, flat); 0 for
    a commitment whose term would run past the horizon."""
    n_t = len(p.demand_gpu_hours)
    caps = np.repeat([float(_unit_cap(p, b)) for b in p.builds], n_t)
    for i, b in enumerate(p.builds):
        if b.committed:
            caps[i * n_t + max(0, n_t - b.life_months + 1) : (i + 1) * n_t] = 0.0
    return caps


def _unit_cap(p: PlanProblem, b: PlanBuild) -> int:
    """Most units of ``b`` worth buying in one month: enough to serve the peak alone."""
    peak = max(p.demand_gpu_hours, default=0.0)
    cap = math.ceil(peak / b.capacity_gpu_hours_per_month)
    if b.committed or p.limits.max_machines is None:  # a commitment is no machine in the lab
        return cap
    return min(cap, p.limits.max_machines)


def solve_plan(p: PlanProblem, time_limit_s: float = 5.0) -> PlanSolution:
    """The least present-value plan for ``p``. When ``time_limit_s`` (wall-clock seconds)
    runs out the best plan found so far is returned with ``optimal`` False and its gap.
    Raises :class:`PlanInfeasible` when the demand cannot be met (no cloud and not enough
    desktops within the limits) or no plan was found within the time limit."""
    n_t, n_b = len(p.demand_gpu_hours), len(p.builds)
    f = p.discount()
    nx = n_b * n_t  # x[b, t], then u[b, t], then r[t]
    n = 2 * nx + n_t
    cost = np.zeros(n)
    for i, b in enumerate(p.builds):
        cost[i * n_t : (i + 1) * n_t] = f * b.upfront_usd + _fees_pv(f, b)
        cost[nx + i * n_t : nx + (i + 1) * n_t] = f * b.cost_usd_per_gpu_hour
    cloud = p.cloud_usd_per_gpu_hour
    cost[2 * nx :] = f * (cloud if cloud is not None else 0.0)
    rows, lo, hi = _constraints(p, n, nx)
    upper = np.concatenate(
        [_purchase_caps(p), np.full(nx, np.inf)]
        + [np.full(n_t, np.inf if cloud is not None else 0.0)]
    )
    integrality = np.concatenate([np.ones(nx), np.zeros(nx + n_t)])
    # Imported here: scipy.optimize adds start-up time and memory to a worker that may never
    # plan (python -X importtime; figures in docs/operations.md).
    from scipy.optimize import Bounds, LinearConstraint, milp

    res = milp(
        cost,
        constraints=LinearConstraint(np.array(rows), lo, hi) if rows else None,
        integrality=integrality,
        bounds=Bounds(np.zeros(n), upper),
        options={"time_limit": time_limit_s},
    )
    if res.status == 2:
        raise PlanInfeasible("no plan meets the demand within the limits")
    if res.x is None or res.status not in (0, 1):
        raise PlanInfeasible(
            f"the solver found no plan within {time_limit_s:g} s ({res.message}): shorten "
            "the horizon or offer fewer builds"
        )
    gap = float(getattr(res, "mip_gap", 0.0) or 0.0)
    return _solution(p, res.x, nx, optimal=res.status == 0, gap=gap if res.status else 0.0)


def _fees_pv(f: np.ndarray, b: PlanBuild) -> np.ndarray:
    """Present value of one unit's fees when bought in each month: its monthly fee over the
    months it serves within the horizon (a commitment always ends within it)."""
    if not b.monthly_fee_usd:
        return np.zeros(len(f))
    cum = np.concatenate([[0.0], np.cumsum(f)])
    ends = np.minimum(np.arange(len(f)) + b.life_months, len(f))
    pv: np.ndarray = b.monthly_fee_usd * (cum[ends] - cum[: len(f)])
    return pv


def _in_service(row: np.ndarray, p: PlanProblem, i: int, t: int, weight: float) -> None:
    """Put ``weight`` on every purchase of build ``i`` still in service in month ``t`` (bought
    in the last ``life_months`` months, ``t`` included): ``row @ x`` is then ``weight`` times
    the units owned in month ``t``."""
    n_t, life = len(p.demand_gpu_hours), p.builds[i].life_months
    row[i * n_t + max(0, t - life + 1) : i * n_t + t + 1] = weight


def _constraints(
    p: PlanProblem, n: int, nx: int
) -> tuple[list[np.ndarray], list[float], list[float]]:
    """Rows of the programme, with their lower and upper bounds: capacity per build and
    month, demand per month, and the fleet limits (purchases, units and power owned)."""
    n_t = len(p.demand_gpu_hours)
    rows: list[np.ndarray] = []
    lo: list[float] = []
    hi: list[float] = []

    def add(row: np.ndarray, low: float, high: float) -> None:
        rows.append(row)
        lo.append(low)
        hi.append(high)

    for i, b in enumerate(p.builds):
        for t in range(n_t):  # u_bt - K_b * owned_bt <= 0
            row = np.zeros(n)
            row[nx + i * n_t + t] = 1.0
            _in_service(row, p, i, t, -b.capacity_gpu_hours_per_month)
            add(row, -np.inf, 0.0)
    for t, need in enumerate(p.demand_gpu_hours):  # sum_b u_bt + r_t >= d_t
        row = np.zeros(n)
        row[nx + t : 2 * nx : n_t] = 1.0
        row[2 * nx + t] = 1.0
        add(row, float(need), np.inf)
    lim = p.limits
    if lim.budget_usd is not None:  # purchases over the horizon <= budget
        row = np.zeros(n)
        row[:nx] = np.repeat([b.upfront_usd for b in p.builds], n_t)
        add(row, -np.inf, lim.budget_usd)
    per_unit = (
        ([0.0 if b.committed else 1.0 for b in p.builds], lim.max_machines),
        ([0.0 if b.committed else b.power_w for b in p.builds], lim.max_power_w),
    )
    for weights, limit in per_unit:  # units (or their power) owned in month t <= limit
        if limit is None:
            continue
        for t in range(n_t):
            row = np.zeros(n)
            for i, w in enumerate(weights):
                _in_service(row, p, i, t, w)
            add(row, -np.inf, float(limit))
    return rows, lo, hi


def _solution(
    p: PlanProblem, x: np.ndarray, nx: int, *, optimal: bool = True, gap: float = 0.0
) -> PlanSolution:
    n_t = len(p.demand_gpu_hours)
    f = p.discount()
    bought = np.rint(x[:nx]).reshape(len(p.builds), n_t).astype(int)
    served = np.maximum(x[nx : 2 * nx].reshape(len(p.builds), n_t), 0.0)
    rented = np.maximum(x[2 * nx :], 0.0)
    owned = [owned_units(bought[i], b.life_months) for i, b in enumerate(p.builds)]
    capex = np.array([b.upfront_usd for b in p.builds]) @ bought
    opex = np.array([b.cost_usd_per_gpu_hour for b in p.builds]) @ served
    cloud = rented * (p.cloud_usd_per_gpu_hour or 0.0)
    fees = np.array([b.monthly_fee_usd for b in p.builds]) @ np.array(owned).reshape(-1, n_t)
    cash = capex + opex + cloud + fees
    return PlanSolution(
        bought=tuple(tuple(int(v) for v in r) for r in bought),
        owned=tuple(tuple(int(v) for v in r) for r in owned),
        served_gpu_hours=tuple(tuple(float(v) for v in r) for r in served),
        rented_gpu_hours=tuple(float(v) for v in rented),
        capex_usd=tuple(float(v) for v in capex),
        desktop_opex_usd=tuple(float(v) for v in opex),
        cloud_usd=tuple(float(v) for v in cloud),
        total_usd=float(cash.sum()),
        present_value_usd=float((cash * f).sum()),
        optimal=optimal,
        mip_gap=gap,
        fees_usd=tuple(float(v) for v in fees),
    )
