"""Each use case's ``resolve()`` and ``compose()`` called directly over the small in-memory
view of ``tests/fakes.py`` (no database, no HTTP): ``resolve`` decides every input and states
its defaults; ``compose`` computes the answer from the scenario alone, so a scenario changed
by hand gives the answer the model's formula gives for the changed input.

Every expected figure is seed 001's (``../shared/reference/seed-facts.md``): a $2,200 desktop
(350 W RTX 3090 + 100 W base), 15 % utilization, USD 0.12/kWh, a $2.14/h V100 spot instance,
591 kWh a year, break-even 2200 / (2.14 x 0.15 x 24 - 0.45 x 0.15 x 24 x 0.12) = 292.96 days.
"""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from app import costing
from app.models.break_even import BreakEvenRequest
from app.models.carbon import CarbonRequest
from app.models.cash_flow import CashFlowRequest
from app.models.compare import SweepRequest
from app.models.electricity import ElectricityRequest
from app.models.llm import LlmEstimateRequest
from app.models.owned_rates import OwnedRatesRequest
from app.models.run_cost import RunCostRequest
from app.settings import Settings
from app.usecases import (
    break_even,
    carbon,
    cash_flow,
    electricity,
    llm_estimate,
    owned_rates,
    plan_answer,
    run_cost,
    sweep,
)
from tests import fakes
from tests.factories import SEED_BREAK_EVEN, SEED_DESKTOP

SETTINGS = Settings(_env_file=None)
PRICE = {"electricity_price_usd_per_kwh": 0.12}
SEED_KWH_YEAR = 0.450 * 0.15 * 24 * 365  # 591.3 kWh, printed "591 kWh/year"


def seed_days(utilization: float) -> float:
    """Seed 001's break-even formula at ``utilization``."""
    return 2200 / (2.14 * utilization * 24 - 0.45 * utilization * 24 * 0.12)


def _names(p: object) -> list[str]:
    return [a.name for a in p.assumptions]  # type: ignore[attr-defined]


USE_CASES = [
    break_even, carbon, cash_flow, electricity, llm_estimate, owned_rates, plan_answer,
    run_cost, sweep,
]  # fmt: skip


@pytest.mark.parametrize("module", USE_CASES)
def test_compose_takes_the_scenario_alone(module: object) -> None:
    params = inspect.signature(module.compose).parameters  # type: ignore[attr-defined]
    assert len(params) == 1


class TestBreakEven:
    def test_resolve_then_compose_gives_the_seed(self) -> None:
        s = break_even.resolve(
            fakes.view(), BreakEvenRequest.model_validate(SEED_BREAK_EVEN), SETTINGS
        )
        assert s.usage.utilization == 0.15
        assert s.electricity_price_usd_per_kwh == 0.12
        assert s.cloud.rate.price_usd_per_hour == 2.14
        assert break_even.compose(s).break_even_days == pytest.approx(292.96, abs=0.005)

    def test_compose_reads_only_the_scenario(self) -> None:
        """Utilization changed in the scenario (not the request): the seed's formula at 35 %
        (a PhD student's slurm cluster, seed 001's profile table)."""
        s = break_even.resolve(
            fakes.view(), BreakEvenRequest.model_validate(SEED_BREAK_EVEN), SETTINGS
        )
        busier = dataclasses.replace(s, usage=costing.Usage(0.35))
        assert break_even.compose(busier).break_even_days == pytest.approx(
            seed_days(0.35), abs=0.005
        )
        assert break_even.compose(s).break_even_days == pytest.approx(seed_days(0.15), abs=0.005)

    def test_defaults_are_stated_in_the_scenario(self) -> None:
        req = BreakEvenRequest.model_validate(
            {"desktop": SEED_DESKTOP, "cloud": {"offer_id": "aws-v100-spot-seed"}}
        )
        s = break_even.resolve(fakes.view(), req, SETTINGS)
        assumed = {a.name: a for a in s.provenance.assumptions}
        assert assumed["utilization"].value == 0.15  # the phd-desktop profile
        assert "phd-desktop" in assumed["utilization"].source
        assert assumed["electricity_price_usd_per_kwh"].value == 0.12
        # The offer's price is a catalog price, dated the seed's day.
        assert dict(s.provenance.prices)["offer aws-v100-spot-seed"] == fakes.SEED_DAY
        answer = break_even.compose(s)
        assert answer.prices.oldest_price_date == fakes.SEED_DAY
        assert answer.prices.prices_as_of == s.provenance.rule.day

    def test_the_scenario_is_frozen(self) -> None:
        s = break_even.resolve(
            fakes.view(), BreakEvenRequest.model_validate(SEED_BREAK_EVEN), SETTINGS
        )
        with pytest.raises(dataclasses.FrozenInstanceError):
            s.provenance.assumptions = ()  # type: ignore[misc]


class TestElectricity:
    def test_the_seeds_591_kwh_and_71_dollars_a_year(self) -> None:
        req = ElectricityRequest.model_validate(
            {"desktop": {"gpu": "rtx-3090"}, "utilization": 0.15, **PRICE}
        )
        s = electricity.resolve(fakes.view(), req, SETTINGS)
        assert s.desk.desktop.base_power_w == 100.0  # the seed barebone's
        out = electricity.compose(s)
        assert out.energy_kwh_per_year == pytest.approx(SEED_KWH_YEAR)
        assert out.cost_usd_per_year == pytest.approx(SEED_KWH_YEAR * 0.12)
        assert round(out.cost_usd_per_year) == 71  # seed 001: "$71/year"

    def test_compose_prices_the_scenarios_electricity(self) -> None:
        req = ElectricityRequest.model_validate(
            {"desktop": {"gpu": "rtx-3090"}, "utilization": 0.15, **PRICE}
        )
        s = electricity.resolve(fakes.view(), req, SETTINGS)
        dearer = dataclasses.replace(s, electricity_price_usd_per_kwh=0.24)
        assert electricity.compose(dearer).cost_usd_per_year == pytest.approx(SEED_KWH_YEAR * 0.24)


class TestCarbon:
    def test_a_year_on_the_world_grid(self) -> None:
        req = CarbonRequest(gpu="rtx-3090", utilization=0.15, days=365, region="world")
        s = carbon.resolve(fakes.view(), req, SETTINGS)
        assert s.carbon_intensity_g_per_kwh == fakes.WORLD_G_PER_KWH
        out = carbon.compose(s)
        kwh = SEED_KWH_YEAR * s.pue
        assert out.energy_kwh == pytest.approx(kwh)
        assert out.operational_co2e_kg == pytest.approx(kwh * fakes.WORLD_G_PER_KWH / 1000)

    def test_compose_uses_the_scenarios_grid(self) -> None:
        req = CarbonRequest(gpu="rtx-3090", utilization=0.15, days=365, region="world")
        s = carbon.resolve(fakes.view(), req, SETTINGS)
        clean = dataclasses.replace(s, carbon_intensity_g_per_kwh=41.0)
        assert carbon.compose(clean).operational_co2e_kg == pytest.approx(
            SEED_KWH_YEAR * s.pue * 41.0 / 1000
        )


class TestSweep:
    def test_the_seed_at_two_utilizations(self) -> None:
        req = SweepRequest.model_validate(
            {
                "desktop": SEED_DESKTOP,
                "cloud": {"price_usd_per_hour": 2.14},
                "utilizations": [0.15, 0.35],
                "electricity_prices_usd_per_kwh": [0.12],
            }
        )
        s = sweep.resolve(fakes.view(), req, SETTINGS)
        assert s.utilizations == (0.15, 0.35)
        out = sweep.compose(s)
        (days,) = out.break_even_days  # one row per electricity price
        assert days == pytest.approx([seed_days(0.15), seed_days(0.35)], abs=0.005)


class TestCashFlow:
    def test_months_and_the_break_even_of_the_seed(self) -> None:
        # The seed's desktop by its power and price (no catalog GPU: no market value to fit).
        seed = {**SEED_BREAK_EVEN, "desktop": {"gpu_power_w": 350, "total_price_usd": 2200}}
        req = CashFlowRequest.model_validate({**seed, "months": 12, "annual_discount_rate": 0.0})
        c = cash_flow.resolve(fakes.view(), req, SETTINGS)
        assert c.inputs.months == 12 and c.inputs.upfront_usd == 2200
        out = cash_flow.compose(c)
        assert out.break_even_days == pytest.approx(seed_days(0.15), abs=0.005)
        # Cloud: $2.14 x 0.15 x 24 h a day, over 12 months of 365/12 days.
        assert out.cloud_total_usd == pytest.approx(2.14 * 0.15 * 24 * 365, rel=1e-6)
        assert "depreciation_years" in _names(c.provenance)


class TestRunCost:
    def test_ten_hours_on_the_seeds_v100_at_its_price(self) -> None:
        req = RunCostRequest.model_validate(
            {
                "workload": {"runtime_s": 36_000, "gpu": "v100-16gb"},
                "options": [
                    {"offer_id": "aws-v100-spot-seed"},
                    {"price_usd_per_hour": 3.06, "gpu": "v100-16gb"},
                ],
                **PRICE,
            }
        )
        s = run_cost.resolve(fakes.view(), req, SETTINGS)
        out = run_cost.compose(s)
        # the workload's own GPU: 10 h at seed 001's $2.14/h, and at a given $3.06/h
        assert [o.cost_usd for o in out.options] == [
            pytest.approx(2.14 * 10),
            pytest.approx(3.06 * 10),
        ]
        assert "launch_overhead_min" in _names(out)


class TestOwnedRates:
    def test_seed_desktops_gpu_hour(self) -> None:
        req = OwnedRatesRequest.model_validate(
            {
                "machines": [{"gpu": "rtx-3090", "gpu_count": 1, "total_price_usd": 2200}],
                "utilization": 0.15,
                **PRICE,
            }
        )
        s = owned_rates.resolve(fakes.view(), req, SETTINGS)
        rate = owned_rates.compose(s).rates[0]
        busy_hours = 5 * 8760 * 0.15  # the 5-year default life (IRS Pub. 946) at 15 %
        assert rate.capex_usd_per_gpu_hour == pytest.approx(2200 / busy_hours)
        # seed 001's 350 W GPU + 100 W CPU at $0.12/kWh, per busy hour
        assert rate.electricity_usd_per_gpu_hour == pytest.approx(0.45 * 0.12)


class TestLlmEstimate:
    def test_llama_8b_in_f16_fits_a_24_gb_card(self) -> None:
        req = LlmEstimateRequest.model_validate(
            {"model": "llama-3.1-8b", "task": "inference", "tokens": 1e6, "gpus": ["rtx-3090"]}
        )
        s = llm_estimate.resolve(fakes.view(), req, SETTINGS)
        row = llm_estimate.compose(s).estimates[0]
        # 8.03e9 parameters x 2 bytes (Meta's model card) are the floor; the card has 24 GB
        assert 16.06 < row.memory_gb_per_gpu < 24
        assert row.fits is True
