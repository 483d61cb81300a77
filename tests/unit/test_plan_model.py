"""The fleet plan's optimum (app.costing.plan, HiGHS via scipy's milp) against a brute-force
enumeration of every purchase schedule on small cases: for fixed purchases the best use of
the fleet is greedy (cheapest running cost first, rent when the cloud is cheaper per GPU-hour
or capacity runs out), so enumerating purchases finds the true optimum."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from app.costing.plan import (
    PlanBuild,
    PlanInfeasible,
    PlanLimits,
    PlanProblem,
    owned_units,
    solve_plan,
)


def brute_force(p: PlanProblem, most: int = 2) -> float | None:
    """Least present value over every schedule of 0..``most`` units per build and month."""
    n_t, f = len(p.demand_gpu_hours), p.discount()
    best = None
    choices = itertools.product(range(most + 1), repeat=len(p.builds) * n_t)
    for flat in choices:
        bought = np.array(flat, dtype=float).reshape(len(p.builds), n_t)
        if any(  # a commitment's term must end within the horizon
            bought[i][t] and t + b.life_months > n_t
            for i, b in enumerate(p.builds)
            if b.committed
            for t in range(n_t)
        ):
            continue
        owned = [owned_units(bought[i], b.life_months) for i, b in enumerate(p.builds)]
        capex = sum(bought[i] @ (f * b.upfront_usd) for i, b in enumerate(p.builds))
        capex += sum(owned[i] @ (f * b.monthly_fee_usd) for i, b in enumerate(p.builds))
        in_lab = [owned[i] * (not b.committed) for i, b in enumerate(p.builds)]
        lim = p.limits
        if (
            lim.budget_usd is not None
            and sum(bought[i].sum() * b.upfront_usd for i, b in enumerate(p.builds))
            > lim.budget_usd + 1e-9
        ):
            continue
        if (
            lim.max_machines is not None
            and max(sum(o) for o in zip(*in_lab, strict=True)) > lim.max_machines
        ):
            continue
        if lim.max_power_w is not None and any(
            sum(in_lab[i][t] * b.power_w for i, b in enumerate(p.builds)) > lim.max_power_w
            for t in range(n_t)
        ):
            continue
        total, ok = capex, True
        for t, need in enumerate(p.demand_gpu_hours):
            left = need
            for i in sorted(range(len(p.builds)), key=lambda i: p.builds[i].cost_usd_per_gpu_hour):
                b = p.builds[i]
                cloud = p.cloud_usd_per_gpu_hour
                if cloud is not None and b.cost_usd_per_gpu_hour >= cloud:
                    break
                use = min(left, owned[i][t] * b.capacity_gpu_hours_per_month)
                total += f[t] * use * b.cost_usd_per_gpu_hour
                left -= use
            if left > 1e-9:
                if p.cloud_usd_per_gpu_hour is None:
                    ok = False
                    break
                total += f[t] * left * p.cloud_usd_per_gpu_hour
        if ok and (best is None or total < best):
            best = total
    return best


SMALL = PlanBuild("1x", 2000.0, 500.0, 0.05, 450.0, 60)
BIG = PlanBuild("2x", 3500.0, 1000.0, 0.045, 800.0, 60)
SHORT = PlanBuild("short-life", 900.0, 400.0, 0.06, 300.0, 2)
# A 2-month cloud commitment: no purchase, $300 a month for its term, 438 GPU-hours a month
# (730 h x 0.6), no running cost and nothing in the lab.
COMMIT = PlanBuild("commit-2m", 0.0, 438.0, 0.0, 0.0, 2, monthly_fee_usd=300.0, committed=True)


CASES = {
    "base and peak": PlanProblem((300.0, 300.0, 2000.0, 300.0), (SMALL,), 1.0),
    "two builds, discounted": PlanProblem((600.0, 900.0, 1500.0), (SMALL, BIG), 0.9, 0.05),
    "cheap cloud rents all": PlanProblem((400.0, 400.0, 400.0), (SMALL,), 0.2),
    "budget binds": PlanProblem((900.0, 900.0, 900.0), (SMALL,), 2.0, 0.0, PlanLimits(2500.0)),
    "power binds": PlanProblem((1500.0,) * 3, (SMALL, BIG), 1.5, 0.0, PlanLimits(None, None, 900)),
    "machines bind": PlanProblem((1800.0,) * 3, (SMALL, BIG), 1.5, 0.0, PlanLimits(None, 1)),
    "units retire": PlanProblem((400.0, 400.0, 400.0, 400.0), (SHORT,), 1.2),
    "desktops only": PlanProblem((400.0, 900.0, 300.0), (SMALL,), None),
    "cloud only, budget given": PlanProblem((100.0, 250.0), (), 1.1, 0.03, PlanLimits(500.0)),
    "a commitment carries the base": PlanProblem((400.0,) * 4, (COMMIT,), 1.0),
    "a short last month": PlanProblem((400.0, 400.0, 400.0, 100.0), (COMMIT,), 1.0),
    "commitment beside desktops": PlanProblem(
        (900.0, 900.0, 900.0), (SMALL, COMMIT), 1.5, 0.05, PlanLimits(None, 1)
    ),
    "a term past the horizon is not taken": PlanProblem((400.0,), (COMMIT,), 1.0),
}


class TestPlanOptimum:
    @pytest.mark.parametrize("name", CASES)
    def test_milp_matches_brute_force(self, name):
        p = CASES[name]
        got = solve_plan(p)
        assert got.present_value_usd == pytest.approx(brute_force(p), rel=1e-7, abs=1e-6)

    @pytest.mark.parametrize("name", CASES)
    def test_plan_meets_demand_and_books_its_cash(self, name):
        p = CASES[name]
        got = solve_plan(p)
        for t, need in enumerate(p.demand_gpu_hours):
            served = sum(row[t] for row in got.served_gpu_hours)
            assert served + got.rented_gpu_hours[t] >= need - 1e-6
            for i, b in enumerate(p.builds):
                assert got.served_gpu_hours[i][t] <= (
                    got.owned[i][t] * b.capacity_gpu_hours_per_month + 1e-6
                )
        cash = np.add(np.add(got.capex_usd, got.desktop_opex_usd), got.cloud_usd)
        cash = np.add(cash, got.fees_usd)
        assert got.total_usd == pytest.approx(cash.sum())
        assert got.present_value_usd == pytest.approx(cash @ p.discount())

    def test_the_base_is_owned_and_the_peak_rented(self):
        # 300 GPU-hours a month all year, 2,000 in one month: a desktop (500 h/month at
        # $0.05/h, $2,000) beats renting 300 h at $1/h within 7 months; the peak's extra
        # 1,500 h in one month are cheaper rented ($1,500) than three more desktops ($6,000).
        demand = tuple(2000.0 if m == 4 else 300.0 for m in range(12))
        got = solve_plan(PlanProblem(demand, (SMALL,), 1.0))
        assert sum(got.bought[0]) == 1 and got.bought[0][0] == 1
        assert got.rented_gpu_hours[4] == pytest.approx(1500.0)
        assert sum(got.rented_gpu_hours) == pytest.approx(1500.0)

    def test_a_commitment_is_owed_for_its_whole_term(self):
        # 400 h a month for 4 months at $1/h rented: $1,600; two 2-month commitments at
        # $300 a month cost $1,200 and carry all of it
        got = solve_plan(CASES["a commitment carries the base"])
        assert got.bought == ((1, 0, 1, 0),) and got.total_usd == pytest.approx(1200.0)
        assert got.fees_usd == pytest.approx((300.0, 300.0, 300.0, 300.0))
        assert sum(got.rented_gpu_hours) == pytest.approx(0.0)
        # when the last month needs 100 h, a second term ($600) costs more than renting
        # months 3 and 4 ($500): one commitment, the rest rented
        tail = solve_plan(CASES["a short last month"])
        assert sum(tail.bought[0]) == 1 and tail.total_usd == pytest.approx(1100.0)
        # a 1-month horizon cannot hold a 2-month term: all rented
        short = solve_plan(CASES["a term past the horizon is not taken"])
        assert short.bought == ((0,),) and short.rented_gpu_hours == (400.0,)

    def test_no_cloud_and_too_few_desktops_is_infeasible(self):
        p = PlanProblem((2000.0,), (SMALL,), None, 0.0, PlanLimits(None, 2))
        with pytest.raises(PlanInfeasible):
            solve_plan(p)

    def test_owned_units_retire_after_their_life(self):
        assert list(owned_units(np.array([1, 0, 2, 0, 0]), 2)) == [1, 1, 2, 2, 0]
