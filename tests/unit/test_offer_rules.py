"""The shared offer and desktop rules (app/costing/offers.py) on plain values: seed 001's
power-supply figures, the comparable-offer rule and the price-outlier rule."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pytest

from app.costing import offers
from app.costing.ownership import MEMORY_PRESETS, MemoryNeed, Scaling, required_memory_gb

# Seed 001 (shared/reference/seed-facts.md): RTX 3090 TDP 350 W, RTX 3080 TDP 320 W;
# "4x RTX 3090 = 1,400 W needs a > 1,700 W PSU"; no desktop PSU above 1,600 W.
RTX_3090_W, RTX_3080_W = 350.0, 320.0


@dataclass(frozen=True)
class Offer:
    id: str
    provider: str
    gpu_id: str
    price_usd_per_hour: float
    gpu_count: int = 1
    pricing_model: str = "on_demand"


@dataclass(frozen=True)
class Dated(Offer):
    as_of: dt.date = dt.date(2026, 1, 1)


class TestPowerSupply:
    def test_4x_3090_wants_1700_w(self) -> None:
        assert offers.psu_w_wanted(4, RTX_3090_W) == 1700
        assert not offers.fits_desktop_psu(4, RTX_3090_W)

    def test_4x_3080_fits_the_largest_desktop_psu(self) -> None:
        # 1,280 W of GPUs + 300 W = 1,580 W <= 1,600 W.
        assert offers.fits_desktop_psu(4, RTX_3080_W)

    def test_warnings_name_the_psu_and_the_circuit(self) -> None:
        # 4x 3090 + 100 W CPU = 1,500 W at the wall: above 80 % of 15 A x 120 V (1,440 W).
        why = offers.power_warnings(4, RTX_3090_W, 4 * RTX_3090_W + 100)
        assert len(why) == 2
        assert "1700 W" in why[0] and "1600 W" in why[0]
        assert "1440 W" in why[1]

    def test_the_seeds_desktop_warns_of_nothing(self) -> None:
        # Seed 001's desktop: one RTX 3090 and a 100 W CPU.
        assert offers.power_warnings(1, RTX_3090_W, RTX_3090_W + 100) == []


class TestComparable:
    @pytest.mark.parametrize(
        ("offer", "comparable"),
        [
            (Offer("a", "aws", "v100", 3.06), True),
            (Offer("b", "aws", "v100", 0.92, pricing_model="spot"), False),
            (Offer("c", "colab", "t4", 0.0), False),
        ],
    )
    def test_on_demand_and_not_colab(self, offer: Offer, comparable: bool) -> None:
        assert offers.is_comparable(offer) is comparable

    def test_cheapest_per_gpu_hour_first(self) -> None:
        eight = Offer("p3.16xlarge", "aws", "v100", 24.48, gpu_count=8)  # $3.06 per GPU-hour
        one = Offer("p3.2xlarge", "aws", "v100", 3.06)
        cheap = Offer("lambda-v100", "lambda", "v100", 0.5)
        assert [o.id for o in offers.cheapest_first([one, eight, cheap])] == [
            "lambda-v100",
            "p3.16xlarge",
            "p3.2xlarge",
        ]
        assert offers.price_per_gpu_hour(eight) == pytest.approx(3.06)

    def test_a_providers_newer_price_supersedes_its_older_when_none_is_fresh(self) -> None:
        # The SkyPilot catalog's RunPod RTX 3090 SECURE rows: $0.44/h in the v6 file (dated
        # 2024-06-30 by gpucost), $0.50/h in the v8 file (2025-09-15); Vast.ai's v8 file
        # (2025-03-18) lists 2x at $0.33/h. On 2026-11-28 none is within 365 days.
        old = Dated("runpod-ca", "runpod", "rtx-3090", 0.44, as_of=dt.date(2024, 6, 30))
        new = Dated("runpod-us", "runpod", "rtx-3090", 0.50, as_of=dt.date(2025, 9, 15))
        vast = Dated("vast-2x", "vast", "rtx-3090", 0.33, gpu_count=2, as_of=dt.date(2025, 3, 18))
        found = offers.cheapest_first([old, new, vast])
        day = dt.date(2026, 11, 28)
        assert offers.freshest_cheapest(found, day) == (vast, 0)  # $0.165 per GPU-hour
        assert offers.freshest_cheapest([old, new], day) == (new, 0)
        # Within the window the cheapest fresh one wins, the provider's older price aside.
        assert offers.freshest_cheapest([old, new], dt.date(2026, 6, 1)) == (new, 1)


class TestOutliers:
    def _peers(self) -> list[Offer]:
        # Three providers at $2, $2.2 and $2.4 per GPU-hour: median of medians $2.2.
        return [
            Offer("x1", "x", "a100", 2.0),
            Offer("y1", "y", "a100", 8.8, gpu_count=4),
            Offer("z1", "z", "a100", 2.4),
        ]

    def test_far_above_the_peers_is_flagged(self) -> None:
        # Provider x's median becomes $4.5, so the peers' median is z's $2.4; $7 is 2.9x it.
        rows = [*self._peers(), Offer("x2", "x", "a100", 7.0)]
        flagged = offers.price_outliers(rows)
        assert set(flagged) == {"x2"}
        assert "2.9x the median of 3 providers' on-demand a100 prices ($2.4)" in flagged["x2"]

    def test_within_the_band_and_too_few_providers_are_not(self) -> None:
        # $5 against the peers' $2.4 (x's median $3.5): 2.08x, inside the 2.5x band.
        assert offers.price_outliers([*self._peers(), Offer("x2", "x", "a100", 5.0)]) == {}
        assert (
            offers.price_outliers([Offer("x", "x", "h100", 1.0), Offer("y", "y", "h100", 9)]) == {}
        )

    def test_spot_and_colab_are_not_peers(self) -> None:
        rows = [*self._peers(), Offer("s", "x", "a100", 60.0, pricing_model="spot")]
        assert offers.price_outliers(rows) == {}


class TestScaling:
    """Multi-GPU scaling (app/costing/ownership.Scaling): seed 003's "3.6-3.8x on 4 GPUs in
    optimised code" (midpoint 3.7x) and seed 001's measured 8-GPU speed-ups."""

    def test_tuned_is_anchored_on_3_7x_at_4_gpus(self) -> None:
        tuned = Scaling.preset("tuned")
        assert tuned.speedup(1) == 1.0
        assert tuned.speedup(4) == pytest.approx(3.7)
        # Seed 001: 8x V100 6.67x, 8x A100 7x; Amdahl on the 4-GPU anchor: within 4 % of both.
        assert 6.67 * 0.96 < tuned.speedup(8) < 7.0 * 1.04

    def test_a_capped_job_gains_nothing_past_its_gpus(self) -> None:
        capped = Scaling("tuned", Scaling.preset("tuned").parallel_fraction, "test", 2)
        assert capped.speedup(8) == capped.speedup(2)

    def test_stated_only_above_one_gpu(self) -> None:
        linear = Scaling.preset("linear")
        assert linear.stated([1]) is None
        assert linear.stated([1, 4]) == {
            "model": "linear",
            "parallel_fraction": 1.0,
            "speedup_4_gpus": 4.0,
        }


class TestMemoryNeed:
    """Seed 001: training large models in research needs >= 24 GB (at 32-bit); seed 002:
    16-bit needs 8/12 of it."""

    def test_a_16_gb_card_is_short_of_large_research_models(self) -> None:
        preset = MEMORY_PRESETS["research"]
        need = MemoryNeed(preset, "fp32", required_memory_gb(preset.min_memory_gb, "fp32"))
        assert need.required_gb == 24
        assert need.short_of("rtx-3090", 24) is None
        assert "below the 24 GB" in str(need.short_of("v100-16gb", 16))

    def test_16_bit_needs_eight_twelfths(self) -> None:
        preset = MEMORY_PRESETS["research"]
        need = MemoryNeed(preset, "fp16", required_memory_gb(preset.min_memory_gb, "fp16"))
        assert need.required_gb == 16
        assert need.short_of("v100-16gb", 16) is None


class TestCircuitsByCountry:
    """Issue 48: a plan in Germany warned of a US 15 A / 120 V circuit (NEC). The socket
    circuit follows the region's country: 120 V x 15 A x 80 % (NEC 210.20(A)) in the US and
    Canada, 230 V x 13 A (BS 1363) in the UK and Ireland, 230 V x 16 A (IEC 60038, CEE 7/3)
    elsewhere."""

    @pytest.mark.parametrize(
        ("country", "watts"),
        [(None, 0.8 * 15 * 120), ("US", 0.8 * 15 * 120), ("CA", 0.8 * 15 * 120),
         ("DE", 230 * 16), ("FR", 230 * 16), ("GB", 230 * 13), ("IE", 230 * 13)],
    )  # fmt: skip
    def test_the_circuit_of_each_country(self, country, watts) -> None:
        assert offers.household_circuit(country).number == watts

    def test_a_german_desktop_is_held_to_its_own_circuit(self) -> None:
        de = offers.household_circuit("DE")
        # 4x 3090 + 100 W = 1,500 W: above a US circuit's 1,440 W, within a 3,680 W one.
        why = offers.power_warnings(4, RTX_3090_W, 4 * RTX_3090_W + 100, circuit=de)
        assert len(why) == 1 and "PSU" in why[0]
        why = offers.power_warnings(8, RTX_3090_W, 3900, circuit=de)
        assert "16 A / 230 V" in why[-1] and "3680 W" in why[-1] and "IEC 60038" in why[-1]
        assert not any("120 V" in w or "NEC" in w for w in why)
