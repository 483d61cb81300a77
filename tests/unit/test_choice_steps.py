"""The steps that make the choices a question leaves open (which GPU of a family, how many,
which options to cost, how much GPU time), tested directly against the small in-memory
catalog of tests/fakes.py: each returns its value and an assumption that says how it was
chosen, or no note when nothing was chosen."""

from __future__ import annotations

import pytest

from app.costing import defaults
from app.errors import NotFound
from app.steps import demand, gpu_choice, rentals, run_options
from app.steps.cloud_offer import comparable_offers_of
from app.steps.llm import tokens_in
from tests import fakes

# Seed 001's world (tests/fakes.py): an RTX 3090 with a $1,499 launch price, a V100 SXM
# module, a 2-GPU barebone, the AWS V100 spot offer at $2.14/h and the `phd-desktop` profile
# at 15 % utilization.
HOURS_PER_MONTH = 24 * 365 / 12  # 730 h: 8,760 h a year over 12 months


class TestGpuVariant:
    def test_one_id_is_that_gpu_without_a_note(self) -> None:
        chosen = gpu_choice.gpu_variant(fakes.view(), ("rtx-3090",), "3090")
        assert chosen.value.id == "rtx-3090"
        assert chosen.notes == ()

    def test_a_family_takes_the_variant_with_the_most_offers_and_names_the_others(self) -> None:
        view = fakes.view(
            [
                fakes.offer("a", "lambda", "rtx-3090", "0.50"),
                fakes.offer("b", "runpod", "rtx-3090", "0.40"),
            ]
        )
        # rtx-3090: 2 offers; v100-16gb: the seed's spot offer only
        chosen = gpu_choice.gpu_variant(view, ("v100-16gb", "rtx-3090"), "either")
        assert chosen.value.id == "rtx-3090"
        note = chosen.assumed("gpu 'either'")
        assert note is not None and note.value == "rtx-3090"
        assert "(2)" in note.source and "also v100-16gb" in note.source

    def test_at_a_provider_the_offers_there_count(self) -> None:
        view = fakes.view(
            [
                fakes.offer("a", "lambda", "rtx-3090", "0.50"),
                fakes.offer("b", "lambda", "rtx-3090", "0.40"),
            ]
        )
        chosen = gpu_choice.gpu_variant(view, ("v100-16gb", "rtx-3090"), "x", provider="aws")
        assert chosen.value.id == "v100-16gb"  # aws rents the V100 (seed 001), not the 3090

    def test_a_purchase_takes_a_variant_with_a_price_sold_as_a_card(self) -> None:
        view = fakes.view([fakes.offer(f"v{i}", "aws", "v100-16gb", "3.06") for i in range(3)])
        # the V100 has more offers, but only the RTX 3090 has a purchase price
        chosen = gpu_choice.gpu_variant(view, ("v100-16gb", "rtx-3090"), "x", bought=True)
        assert chosen.value.id == "rtx-3090"
        note = chosen.assumed("gpu 'x'")
        assert note is not None and "with a purchase price" in note.source


class TestHgxCount:
    def test_an_sxm_module_is_bought_as_an_8_gpu_board(self) -> None:
        v100 = fakes.view().gpu("v100-16gb")
        assert v100 is not None
        chosen = gpu_choice.hgx_count(v100, 1)
        assert chosen.value == 8
        note = chosen.assumed("desktop.gpu_count")
        assert note is not None and "asked: 1" in note.source

    def test_a_card_keeps_its_count(self) -> None:
        rtx = fakes.view().gpu("rtx-3090")
        assert rtx is not None
        assert gpu_choice.hgx_count(rtx, 3) == (3, ())


class TestMemoryAndPlanGpu:
    def test_gpus_with_at_least_so_much_memory(self) -> None:
        chosen = gpu_choice.gpus_with_memory(fakes.view(), 20)
        assert chosen.value == ("rtx-3090",)  # 24 GB; the V100 has 16
        note = chosen.assumed("gpus")
        assert note is not None and note.value == "1 GPU with at least 20 GB"

    def test_the_plan_gpu_is_the_priced_card_offered_most(self) -> None:
        view = fakes.view([fakes.offer("a", "lambda", "rtx-3090", "0.50")])
        chosen = gpu_choice.plan_gpu(view)
        assert chosen.value == "rtx-3090"  # the V100 has no purchase price
        note = chosen.assumed("gpu")
        assert note is not None and "(1 offers)" in note.source


class TestDemand:
    def test_people_are_sized_with_the_phd_desktop_profile(self) -> None:
        chosen = demand.people_demand(fakes.view(), 8)
        assert chosen.value == pytest.approx(8 * 0.15 * HOURS_PER_MONTH)
        note = chosen.assumed("baseline_gpu_hours_per_month")
        assert note is not None and "8 people x one GPU each at 'PhD desktop' 15%" in note.source

    def test_no_profile_is_not_found(self) -> None:
        view = fakes.view()
        view.profiles.pop("phd-desktop")
        with pytest.raises(NotFound):
            demand.people_demand(view, 2)

    @pytest.mark.parametrize(("days", "months", "noted"), [(365, 12, False), (30, 12, True)])
    def test_plan_months_within_12_to_60(self, days: float, months: int, noted: bool) -> None:
        chosen = demand.plan_months(days)
        assert chosen.value == months
        assert (chosen.assumed("months") is not None) is noted

    def test_a_long_horizon_is_clamped_to_60_months(self) -> None:
        assert demand.plan_months(10 * 365).value == 60

    def test_busy_hours_around_the_clock_without_a_utilization(self) -> None:
        chosen = demand.busy_hours(7, None)
        assert chosen.value == 7 * 24
        assert chosen.assumed("hours") is not None
        assert demand.busy_hours(7, 0.25) == (7 * 24 * 0.25, ())

    def test_a_runs_seconds_over_a_period(self) -> None:
        assert demand.busy_runtime_s(2, None).value == 2 * 86_400
        assert demand.busy_runtime_s(2, 0.5) == (86_400, ())

    def test_carbon_period_defaults_to_the_registrys_year(self) -> None:
        chosen = demand.carbon_days(None)
        assert chosen.value == 365
        note = chosen.assumed("days")
        assert note is not None and note.source == defaults.CARBON_DAYS.source_text()
        assert demand.carbon_days(3) == (3, ())


class TestRunOptions:
    def test_cheapest_on_demand_offer_per_provider_and_a_desktop(self) -> None:
        view = fakes.view(
            [
                fakes.offer("l1", "lambda", "rtx-3090", "0.80"),
                fakes.offer("l2", "lambda", "rtx-3090", "0.60"),
                fakes.offer("r1", "runpod", "rtx-3090", "0.44"),
                fakes.offer("free", "colab", "rtx-3090", "0"),
            ]
        )
        rtx = view.gpu("rtx-3090")
        assert rtx is not None
        chosen = run_options.gpu_options(view, rtx, 1)
        assert chosen.value == [
            {"offer_id": "r1"},
            {"offer_id": "l2"},
            {"desktop": {"gpu": "rtx-3090", "gpu_count": 1}},
        ]

    def test_a_gpu_with_neither_offer_nor_price_is_not_found(self) -> None:
        view = fakes.view()
        # the V100 has only a spot offer (seed 001's) and no purchase price
        v100 = view.gpu("v100-16gb")
        assert v100 is not None
        with pytest.raises(NotFound):
            run_options.gpu_options(view, v100, 1)

    def test_matched_offers_one_region_per_instance_type(self) -> None:
        found = [
            fakes.offer("a-us", "aws", "v100-16gb", "3.06", instance_type="p3", region="us"),
            fakes.offer("a-eu", "aws", "v100-16gb", "3.31", instance_type="p3", region="eu"),
            fakes.offer("g", "gcp", "v100-16gb", "2.48", instance_type="n1"),
        ]
        chosen = run_options.distinct_offers(found)
        assert chosen.value == [{"offer_id": "a-us"}, {"offer_id": "g"}]
        note = chosen.assumed("options")
        assert note is not None and "of 3 matching offers" in note.source


class TestRentals:
    def test_n_gpus_on_smaller_instances_and_gpu_hours(self) -> None:
        view = fakes.view(
            [
                fakes.offer("one", "lambda", "rtx-3090", "0.50"),
                fakes.offer("four", "runpod", "rtx-3090", "1.80", gpu_count=4),
            ]
        )
        found = [o for o in view.offers.offers if o.gpu_id == "rtx-3090"]
        # 8 GPUs for 10 h: 8 x $0.50 x 10 = $40; 2 x $1.80 x 10 = $36
        chosen = rentals.cheapest_rentals(view, found, 8, None, 10)
        assert [(r.offer.id, r.instances, r.cost_usd) for r in chosen.value] == [
            ("four", 2, pytest.approx(36.0)),
            ("one", 8, pytest.approx(40.0)),
        ]
        # 100 GPU-hours: $0.45 per GPU-hour on the 4-GPU instance, $0.50 on the single
        by_gpu_hour = rentals.cheapest_rentals(view, found, 1, 100, 0).value
        assert [r.cost_usd for r in by_gpu_hour] == [pytest.approx(45.0), pytest.approx(50.0)]
        assert chosen.assumed("offers") is not None


class TestComparableAndTokens:
    def test_each_gpus_comparable_offer(self) -> None:
        view = fakes.view([fakes.offer("r", "runpod", "rtx-3090", "0.44")])
        chosen = comparable_offers_of(view, ("rtx-3090", "v100-16gb"))
        # the V100's only offer is spot: not comparable (on demand)
        assert [o.id if o else None for o in chosen.value] == ["r", None]
        assert chosen.notes == ()

    def test_tokens_of_a_duration_at_the_estimates_rate(self) -> None:
        chosen = tokens_in("rtx-4090", 1, 1000.0, 2)
        assert chosen.value == 7_200_000
        note = chosen.assumed("tokens")
        assert note is not None and "1 x rtx-4090 process in 2 h" in note.source


class TestLlmBuyOrRent:
    @staticmethod
    def _row(gpu: str, *, fits: bool, offer: str | None, owned: float | None) -> object:
        from app.models.llm import LlmCloudCost, LlmGpuEstimate, LlmOwnedCost

        cloud = LlmCloudCost.model_construct(offer_id=offer, cost_usd=0.0) if offer else None
        box = LlmOwnedCost.model_construct(cost_usd=owned, upfront_usd=owned) if owned else None
        return LlmGpuEstimate.model_construct(
            gpu_id=gpu, fits=fits, gpus_priced=1, runtime_s=3600.0, cloud=cloud, owned=box
        )

    def test_a_node_is_rented_whole_and_the_box_must_hold_the_job(self) -> None:
        from app.steps.llm_buy import buy_or_rent

        view = fakes.view(
            [
                fakes.offer("one", "lambda", "rtx-3090", "0.90"),
                fakes.offer("node", "runpod", "v100-16gb", "1.60", gpu_count=8),
            ]
        )
        rows = [
            self._row("v100-16gb", fits=True, offer="node", owned=None),  # $0.20/GPU-h, 8 GPUs
            self._row("rtx-3090", fits=True, offer="one", owned=900.0),
            self._row("rtx-4090", fits=False, offer=None, owned=100.0),  # cheaper, does not fit
        ]
        chosen = buy_or_rent(view, rows).value
        assert chosen is not None
        assert chosen.box.gpu_id == "rtx-3090"
        # one hour: the 8-GPU node costs $1.60 whole, the single 3090 $0.90
        assert chosen.rental.row.gpu_id == "rtx-3090"
        assert chosen.rental.cost_usd == pytest.approx(0.90)


@pytest.mark.parametrize(
    ("gpu_id", "family"),
    [
        ("a100-40gb", "a100"),
        ("a100-sxm4-80gb", "a100"),
        ("v100-pcie-16gb", "v100"),
        ("h100-nvl", "h100"),
        ("rtx-4090", "rtx-4090"),
        ("rtx-a6000", "rtx-a6000"),
    ],
)
def test_a_family_is_the_id_without_memory_and_form(gpu_id, family):
    assert gpu_choice.family(gpu_id) == family
