"""The pure cost model, with plain values from the seeds (no database, no web)."""

from __future__ import annotations

import math

import pytest

from app import costing
from app.costing import CloudRate, Desktop, Usage
from app.costing import ownership as own
from tests.seed_values import SEED_001, printed


@pytest.fixture()
def seed_desktop() -> Desktop:
    return Desktop(
        upfront_usd=SEED_001["desktop_usd"],
        gpu_power_w=SEED_001["gpu_w"],
        base_power_w=SEED_001["cpu_w"],
    )


class TestSeedBreakEven:
    """Seed 001: $2,200 desktop, 350 W + 100 W, $0.12/kWh, 15 %, AWS V100 spot at $2.14/h."""

    def test_energy_per_year_is_591_kwh(self, seed_desktop):
        kwh_day = costing.desktop_energy_kwh_per_day(seed_desktop, Usage(0.15))
        assert round(kwh_day * 365) == SEED_001["kwh_per_year"]

    def test_electricity_per_year_is_71_usd(self, seed_desktop):
        kwh_year = costing.desktop_energy_kwh_per_day(seed_desktop, Usage(0.15)) * 365
        assert round(costing.electricity_cost_usd(kwh_year, 0.12)) == SEED_001["usd_per_year"]

    def test_break_even_is_293_days(self, seed_desktop):
        result = costing.break_even(seed_desktop, CloudRate(2.14), Usage(0.15), 0.12)
        assert abs(result.days - SEED_001["days"]) <= 1
        # seed-facts.md: 2200 / (2.14 x 0.15 x 24 - 0.45 kW x 0.15 x 24 x 0.12) = 292.96
        expected = 2200 / (2.14 * 0.15 * 24 - 0.45 * 0.15 * 24 * 0.12)
        assert result.days == pytest.approx(expected, rel=1e-12)

    def test_article_totals_at_300_days(self, seed_desktop):
        # "about 300 days ($2,311 vs $2,270)": cloud 2.14 x 3.6 h x 300 d = $2,311.
        result = costing.break_even(seed_desktop, CloudRate(2.14), Usage(0.15), 0.12)
        desktop_total, cloud_total = result.total_cost_usd(2200, 300)
        assert round(cloud_total) == 2311
        assert desktop_total < cloud_total


class TestBreakEvenEdges:
    def test_cheaper_cloud_never_breaks_even(self, seed_desktop):
        # A $0.05/h cloud at 15 % is $0.18/day, below the desktop's $0.1944/day of power.
        result = costing.break_even(seed_desktop, CloudRate(0.05), Usage(0.15), 0.12)
        assert result.days is None
        assert "never" in result.reason
        assert result.daily_saving_usd < 0

    def test_equal_daily_cost_is_never_not_infinite(self):
        desktop = Desktop(upfront_usd=1000, gpu_power_w=1000, base_power_w=0)
        # 1 kW at $1/kWh = $1/h, the same as the cloud: saving is exactly zero.
        result = costing.break_even(desktop, CloudRate(1.0), Usage(0.5), 1.0)
        assert result.days is None and not math.isinf(result.daily_saving_usd)

    def test_monthly_fee_adds_to_cloud_cost(self, seed_desktop):
        with_fee = costing.break_even(
            seed_desktop, CloudRate(2.14, monthly_fee_usd=39), Usage(0.15), 0.12
        )
        assert with_fee.cloud.cost_usd_per_day == pytest.approx(2.14 * 3.6 + 39 * 12 / 365)

    def test_slower_cloud_needs_more_hours(self, seed_desktop):
        result = costing.break_even(
            seed_desktop, CloudRate(2.14), Usage(0.15), 0.12, cloud_time_factor=1.5
        )
        assert result.cloud_busy_hours_per_day == pytest.approx(3.6 * 1.5)


class TestPower:
    def test_psu_efficiency_divides_component_power(self):
        d = Desktop(upfront_usd=0, gpu_power_w=350, base_power_w=100, psu_efficiency=0.9)
        assert d.busy_power_w == pytest.approx(500.0)

    def test_idle_power_counts_while_on_but_not_busy(self):
        d = Desktop(upfront_usd=0, gpu_power_w=300, base_power_w=0, idle_power_w=50)
        kwh = costing.desktop_energy_kwh_per_day(d, Usage(0.25, idle_on_fraction=1.0))
        assert kwh == pytest.approx((300 * 6 + 50 * 18) / 1000)

    def test_four_gpus(self):
        # Seed 001: 4x RTX 3090 = 1,400 W of GPUs.
        d = Desktop(upfront_usd=0, gpu_power_w=350, gpu_count=4, base_power_w=0)
        assert d.busy_power_w == 1400


class TestCloudBilling:
    def test_per_second_with_minute_minimum(self):
        assert costing.billed_seconds(12.4, 1, 60) == 60
        assert costing.billed_seconds(128.18, 1, 60) == 129

    def test_continuous_billing(self):
        assert costing.billed_seconds(627, None, None) == 627

    def test_paperspace_efficientnet_a6000(self):
        # Seed 004: 627 s x $1.89/h = $0.33.
        run = costing.cloud_run_cost(627, CloudRate(1.89))
        assert round(run.cost_usd, 2) == 0.33

    def test_colab_pro_included_units(self):
        # Colab Pro: $9.99/month includes 100 CU; a T4 burns 1.19 CU/h (McCormick 2026-03-10).
        rate = CloudRate(
            1.19 * 0.0999,
            monthly_fee_usd=9.99,
            included_compute_units_per_month=100,
            compute_units_per_hour=1.19,
        )
        assert costing.cloud_cost_usd_per_month(rate, 50) == pytest.approx(9.99)
        hours_included = 100 / 1.19
        assert costing.cloud_cost_usd_per_month(rate, hours_included + 10) == pytest.approx(
            9.99 + 10 * 1.19 * 0.0999
        )


class TestPerItem:
    def test_cost_per_batch_item(self):
        # Seed 004: V100 16GB, StyleGAN_XL max batch 8, $2.30/h -> 0.288.
        assert abs(costing.cost_per_batch_item_usd(2.30, 8) - 0.288) <= printed(0.288, 3)

    def test_cost_per_item(self):
        assert costing.cost_per_item_usd(0.33, 100_000) == pytest.approx(3.3e-6)


class TestDesktopRun:
    def test_marginal_and_amortized(self):
        d = Desktop(upfront_usd=2200, gpu_power_w=350, base_power_w=100, lifetime_years=5)
        run = costing.desktop_run_cost(3600, d, Usage(0.15), 0.12)
        assert run.energy_kwh == pytest.approx(0.45)
        assert run.marginal_cost_usd == pytest.approx(0.054)
        # 5 years x 365 d x 3.6 busy h = 6,570 busy hours for $2,200.
        assert run.amortized_purchase_usd == pytest.approx(2200 / 6570)


class TestCarbon:
    def test_co2e(self):
        # 591.3 kWh at the IEA 2019 world average of 475 g/kWh.
        assert costing.co2e_kg(591.3, 475) == pytest.approx(280.8675)

    def test_pue_scales_energy(self):
        assert costing.co2e_kg(100, 400, pue=1.2) == pytest.approx(48.0)


class TestSpeed:
    def test_bandwidth_estimate(self):
        # Seed 001: A100 vs V100 memory bandwidth 1,555 vs 900 GB/s (the uncalibrated rule).
        v100, a100 = costing.GpuTraits(900, None), costing.GpuTraits(1555, None)
        ratio = costing.estimated_ratio(costing.BANDWIDTH_ONLY, v100, a100)
        assert ratio.time_factor == pytest.approx(900 / 1555)
        assert ratio.basis == "estimate"

    def test_measured(self):
        # Seed 004 YOLOR: V100 16GB 19.34 s, A100 12.42 s.
        from app.steps.speed import SpeedEvidence

        runs = {"yolor": {"v100-16gb": 19.34, "a100-40gb": 12.42}}
        evidence = SpeedEvidence(runs, {}, costing.BANDWIDTH_ONLY, costing.BANDWIDTH_ONLY)
        [(label, ratio, _)] = evidence.measured("v100-16gb", "a100-40gb")
        assert label == "yolor" and ratio == pytest.approx(12.42 / 19.34)

    def test_calibration_recovers_known_weights(self):
        # Pairs made from a known law (speed ~ bw^0.3 x matmul^0.35 x e^0.2 for a consumer
        # card) are fitted back exactly by plain least squares (ridge 0), with zero
        # leave-one-out error.
        gpus = [
            costing.GpuTraits(bw, mm, consumer, "Ampere")
            for bw, mm, consumer in [
                (192, 2.6, True),
                (432, 12.0, False),
                (900, 125.0, False),
                (768, 38.7, True),
                (1555, 312.0, False),
                (256, 6.5, True),
            ]
        ]
        law = costing.SpeedModel(0.3, 0.35, 0.2, 0, 0.0, 0.0, "law")
        pairs = [(a, b, law.log_speedup(a, b)) for a in gpus for b in gpus if a is not b]
        fit = costing.fit_speed_model(pairs, with_matmul=True, basis="synthetic", ridge=0.0)
        assert (fit.w_bandwidth, fit.w_matmul, fit.w_consumer) == pytest.approx((0.3, 0.35, 0.2))
        assert fit.pairs == 30 and fit.loo_median_error == pytest.approx(0.0, abs=1e-9)
        # A100 (1,555 GB/s, 312 TFLOPS) vs V100 (900, 125) under that law:
        ratio = costing.estimated_ratio(fit, gpus[2], gpus[4])
        expected = (1555 / 900) ** 0.3 * (312 / 125) ** 0.35
        assert ratio.time_factor == pytest.approx(1 / expected) and ratio.basis == "estimate"
        assert ratio.error_band == pytest.approx(0.0, abs=1e-9)

    def test_too_few_pairs_fall_back_to_bandwidth(self):
        a, b = costing.GpuTraits(900, None), costing.GpuTraits(1555, None)
        fit = costing.fit_speed_model([(a, b, 0.4)], with_matmul=False, basis="x")
        assert fit is costing.BANDWIDTH_ONLY
        assert costing.estimated_ratio(fit, a, b).time_factor == pytest.approx(900 / 1555)


class TestInvalidInput:
    @pytest.mark.parametrize("u", [0.0, -0.1, 1.5, math.nan, math.inf])
    def test_utilization_bounds(self, u):
        with pytest.raises(costing.InvalidInput) as exc:
            Usage(u)
        assert exc.value.field == "utilization"

    def test_negative_price(self):
        with pytest.raises(costing.InvalidInput):
            CloudRate(-1.0)

    def test_zero_batch(self):
        with pytest.raises(costing.InvalidInput):
            costing.cost_per_batch_item_usd(1.0, 0)


class TestEnergy:
    def test_energy_kwh_with_pue(self):
        # 300 W (V100 SXM2 TDP) for 100 h in an AWS datacenter (PUE 1.2, Green Algorithms).
        assert costing.energy_kwh(300, 100, pue=1.2) == pytest.approx(36.0)

    def test_energy_kwh_rejects_pue_below_one(self):
        with pytest.raises(costing.InvalidInput):
            costing.energy_kwh(300, 1, pue=0.9)


def test_rate_in_force_is_the_latest_dated_on_or_before_the_day():
    import datetime as dt

    from app.costing.money import ExchangeRate, rate_in_force

    # two half-year means, dated by their periods' ends
    h1 = ExchangeRate("EUR", 1.08, dt.date(2024, 6, 30), "h1")
    h2 = ExchangeRate("EUR", 1.09, dt.date(2024, 12, 31), "h2")
    rates = (h1, h2)
    assert rate_in_force(rates, dt.date(2024, 6, 30)) is h1  # on the day
    assert rate_in_force(rates, dt.date(2024, 12, 30)) is h1
    assert rate_in_force(rates, dt.date(2025, 3, 1)) is h2
    assert rate_in_force(rates, dt.date(2020, 1, 1)) is h1  # before every rate: the earliest
    with pytest.raises(costing.InvalidInput):
        rate_in_force((), dt.date(2024, 1, 1))


# -- committed use (issue 20): billed every month of the term, 730 h per instance -------------


def test_a_commitment_bills_its_fee_whatever_the_hours():
    from app.costing import COMMITTED_HOURS_PER_MONTH, committed_instances

    assert COMMITTED_HOURS_PER_MONTH == 24 * 365 / 12 == 730
    rate = CloudRate(price_usd_per_hour=1000 / 730, monthly_fee_usd=1000, commitment_term_months=12)
    for hours in (0, 1, 365, 730):
        assert costing.cloud_cost_usd_per_month(rate, hours) == 1000
    assert committed_instances(731) == 2 and committed_instances(1460) == 2
    assert costing.cloud_cost_usd_per_month(rate, 1000) == 2000
    # the same fee without a term is a plan fee plus hourly use
    plan = CloudRate(price_usd_per_hour=1.0, monthly_fee_usd=1000)
    assert costing.cloud_cost_usd_per_month(plan, 10) == 1010


def test_rank_owes_a_commitments_whole_term():
    import numpy as np

    from app.costing import vector

    one = np.ones(2)
    opts = vector.Options(
        is_desktop=np.zeros(2, bool),
        price_usd_per_hour=np.array([2.0, 1000 / 730]),
        monthly_fee_usd=np.array([0.0, 1000.0]),
        included_hours_per_month=np.zeros(2),
        billing_increment_h=np.zeros(2),
        billing_minimum_h=np.zeros(2),
        upfront_usd=np.zeros(2),
        power_w=one * 300,
        pue=one,
        carbon_intensity_g_per_kwh=one * 400,
        time_factor=one,
        overhead_factor=one,
        max_batch_size=np.zeros(2),
        commitment_term_months=np.array([0.0, 36.0]),
    )
    work = vector.Workload(
        reference_hours_per_month=100,
        run_hours=None,
        horizon_months=12,
        electricity_price_usd_per_kwh=0.1,
    )
    costs = vector.rank(opts, work)
    assert costs.total_cost_usd[0] == 2.0 * 100 * 12
    assert costs.total_cost_usd[1] == 1000 * 36  # 12 months asked, 36 owed
    assert costs.effective_usd_per_hour[1] == 1000 * 36 / (100 * 12)


def test_calibration_per_architecture_recovers_its_offsets():
    # Pairs made from a known law with an offset per architecture are fitted back exactly by
    # plain least squares (offsets are known up to a constant: their differences are
    # checked); an architecture nothing measured gets no offset; the leave-one-out errors
    # are kept per generation (the newer architecture of each pair).
    offsets = {"Pascal": -0.5, "Turing": 0.25, "Ampere": 0.0}
    gpus = [
        costing.GpuTraits(bw, mm, False, arch)
        for bw, mm, arch in [
            (320, 8.9, "Pascal"),
            (484, 11.3, "Pascal"),
            (448, 65.0, "Turing"),
            (616, 89.0, "Turing"),
            (760, 119.0, "Ampere"),
            (936, 142.0, "Ampere"),
        ]
    ]

    def law(a, b):
        return (
            0.4 * math.log(b.memory_bandwidth_gb_per_s / a.memory_bandwidth_gb_per_s)
            + 0.3 * math.log(b.matmul_tflops / a.matmul_tflops)
            + offsets[b.architecture]
            - offsets[a.architecture]
        )

    pairs = [(a, b, law(a, b)) for a in gpus for b in gpus if a is not b]
    fit = costing.fit_speed_model(pairs, with_matmul=True, basis="synthetic", ridge=0.0)
    assert (fit.w_bandwidth, fit.w_matmul) == pytest.approx((0.4, 0.3))
    got = dict(fit.w_architecture)
    assert got["Turing"] - got["Ampere"] == pytest.approx(0.25)
    assert got["Pascal"] - got["Ampere"] == pytest.approx(-0.5)
    assert fit.loo_median_error == pytest.approx(0.0, abs=1e-9)
    assert [(g, n) for g, n, _ in fit.loo_by_generation] == [
        ("Pascal", 2),
        ("Turing", 10),
        ("Ampere", 18),
    ]
    ada = costing.GpuTraits(1008, 165.2, True, "Ada Lovelace")
    assert "Ada Lovelace" not in got and fit.covers(gpus[5], ada)
    # A ridge penalty shrinks the offsets towards 0 and costs accuracy on exact data.
    shrunk = costing.fit_speed_model(pairs, with_matmul=True, basis="synthetic", ridge=10.0)
    spread = max(dict(shrunk.w_architecture).values()) - min(dict(shrunk.w_architecture).values())
    assert spread < 0.75 and shrunk.loo_median_error > 0


class TestDepreciationFit:
    """:func:`app.costing.ownership.fit_depreciation` on points drawn from known curves."""

    def test_a_weibull_curve_is_recovered(self):
        ages = [0.5 * i for i in range(1, 17)]  # 16 points, 0.5-8 years
        points = [(a, math.exp(-((a / 4.0) ** 2.0))) for a in ages]
        curve = own.fit_depreciation(points, "synthetic")
        assert curve.scale_years == pytest.approx(4.0, rel=1e-4)
        assert curve.shape == pytest.approx(2.0, rel=1e-4)
        assert curve.rmse_log == pytest.approx(0.0, abs=1e-6)
        # bought at 2 years, held 3: r(5) / r(2) = exp(-(25 - 4) / 16)
        assert curve.retained_fraction(3, 2) == pytest.approx(math.exp(-21 / 16), rel=1e-4)

    def test_few_points_take_the_exponential(self):
        points = [(1.0, 0.8), (2.0, 0.7), (4.0, 0.45)]
        k = sum(a * -math.log(r) for a, r in points) / sum(a * a for a, _ in points)
        curve = own.fit_depreciation(points, "synthetic")
        assert curve.shape == 1.0
        assert 1 / curve.scale_years == pytest.approx(k, rel=1e-12)
        assert curve.retained_fraction(3, 7) == pytest.approx(math.exp(-3 * k), rel=1e-12)
        assert curve.annual_decay(3, 7) == pytest.approx(k, rel=1e-12)
