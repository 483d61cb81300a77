"""The owned-GPU hourly rate (:mod:`app.costing.owned_rate`), with seed 001's break-even
figures: a $2,200 desktop, 350 W GPU + 100 W CPU, $0.12/kWh, busy 15 % of the time."""

from __future__ import annotations

import pytest

from app import costing
from app.costing import Desktop, InvalidInput, Usage, defaults
from tests.seed_values import SEED_001

# IRS Publication 946, Table B-1, asset class 00.12: computers are recovered over 5 years.
IRS_RECOVERY_YEARS = 5
HOURS_PER_YEAR = 365 * 24  # seed 001's arithmetic
BUSY_KW = (SEED_001["gpu_w"] + SEED_001["cpu_w"]) / 1000


def seed_desktop(**kw: float) -> Desktop:
    return Desktop(
        upfront_usd=SEED_001["desktop_usd"],
        gpu_power_w=SEED_001["gpu_w"],
        base_power_w=SEED_001["cpu_w"],
        **kw,
    )


class TestSeedRate:
    def test_default_lifetime_is_the_irs_recovery_period(self):
        assert defaults.LIFETIME.number == IRS_RECOVERY_YEARS

    def test_capex_electricity_and_total(self):
        rate = costing.owned_rate(seed_desktop(), Usage(SEED_001["utilization"]), 0.12)
        hours = IRS_RECOVERY_YEARS * HOURS_PER_YEAR * SEED_001["utilization"]  # 6,570 h
        assert rate.capex_usd_per_gpu_hour == pytest.approx(SEED_001["desktop_usd"] / hours)
        assert rate.electricity_usd_per_gpu_hour == pytest.approx(BUSY_KW * SEED_001["usd_per_kwh"])
        # 2200 / 6570 + 0.45 x 0.12 = 0.33486 + 0.054
        assert rate.cost_usd_per_gpu_hour == pytest.approx(0.388855, abs=1e-6)
        assert rate.overhead_usd_per_gpu_hour == 0

    def test_a_year_of_electricity_is_the_seeds_71_usd(self):
        rate = costing.owned_rate(seed_desktop(), Usage(SEED_001["utilization"]), 0.12)
        year = rate.electricity_usd_per_gpu_hour * rate.gpu_hours_per_year
        assert round(year) == SEED_001["usd_per_year"]

    def test_same_as_a_one_hour_desktop_run(self):
        # The rate is desktop_run_cost's fully-loaded cost of one busy hour (no idle power).
        desk, usage = seed_desktop(resale_usd=500), Usage(0.3)
        run = costing.desktop_run_cost(3600, desk, usage, 0.2)
        rate = costing.owned_rate(desk, usage, 0.2)
        assert rate.cost_usd_per_gpu_hour == pytest.approx(run.fully_loaded_cost_usd)

    def test_per_gpu_in_a_multi_gpu_machine(self):
        one = costing.owned_rate(seed_desktop(), Usage(0.15), 0.12)
        four = costing.owned_rate(seed_desktop(gpu_count=4), Usage(0.15), 0.12)
        assert four.gpu_hours_per_year == pytest.approx(4 * one.gpu_hours_per_year)
        assert four.capex_usd_per_gpu_hour == pytest.approx(one.capex_usd_per_gpu_hour / 4)
        # 4 x 350 W + 100 W over 4 GPU-hours
        assert four.electricity_usd_per_gpu_hour == pytest.approx((1.4 + 0.1) * 0.12 / 4)

    def test_resale_overhead_and_idle_power(self):
        desk = seed_desktop(resale_usd=700, idle_power_w=60, lifetime_years=3)
        rate = costing.owned_rate(desk, Usage(0.5, idle_on_fraction=1.0), 0.12, 1000)
        busy_hours = 0.5 * HOURS_PER_YEAR
        assert rate.capex_usd_per_gpu_hour == pytest.approx(1500 / (3 * busy_hours))
        idle_kwh = 0.060 * 0.5 * HOURS_PER_YEAR
        elec = (BUSY_KW * busy_hours + idle_kwh) * 0.12 / busy_hours
        assert rate.electricity_usd_per_gpu_hour == pytest.approx(elec)
        assert rate.overhead_usd_per_gpu_hour == pytest.approx(1000 / busy_hours)

    def test_resale_above_price_costs_nothing(self):
        rate = costing.owned_rate(seed_desktop(resale_usd=3000), Usage(0.15), 0.12)
        assert rate.capex_usd_per_gpu_hour == 0

    def test_negative_overhead_refused(self):
        with pytest.raises(InvalidInput):
            costing.owned_rate(seed_desktop(), Usage(0.15), 0.12, -1)


class TestPool:
    def test_pool_weighs_by_gpu_hours(self):
        busy = costing.owned_rate(seed_desktop(), Usage(0.6), 0.12)
        quiet = costing.owned_rate(seed_desktop(), Usage(0.15), 0.12)
        pool = costing.pooled_rate([(busy, 1), (quiet, 2)])
        total = busy.cost_usd_per_year + 2 * quiet.cost_usd_per_year
        hours = busy.gpu_hours_per_year + 2 * quiet.gpu_hours_per_year
        assert pool.gpu_hours_per_year == pytest.approx(hours)
        assert pool.cost_usd_per_gpu_hour == pytest.approx(total / hours)

    def test_empty_pool_refused(self):
        with pytest.raises(InvalidInput):
            costing.pooled_rate([])
