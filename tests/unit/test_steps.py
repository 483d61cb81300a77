"""Resolution steps tested directly against a small in-memory catalog view (tests/fakes.py),
not through HTTP: each step returns the input it decided with the notes that say how
(:class:`app.costing.sourced.Sourced`): its default and source, or nothing when given."""

from __future__ import annotations

import pytest

from app.costing import defaults
from app.costing.sourced import Caveat, Sourced
from app.errors import NotFound
from app.models.inputs import CloudSpec, DesktopSpec, UsageInputs
from app.models.interpretation import CloudQuery, GpuMention
from app.settings import Settings
from app.steps import cloud_offer, demand, desktop, site
from app.steps.offer_search import matching_offers, offer_for_desktop, rental_offers
from tests import fakes
from tests.factories import SEED_DESKTOP

# Seed 001: a $2,200 desktop (2-GPU barebone + 1x RTX 3090), 350 W GPU + 100 W CPU, USD 0.12
# per kWh, utilization 15 %, AWS V100 spot at $2.14/h.


def _settings(**overrides: object) -> Settings:
    return Settings(_env_file=None, **overrides)  # type: ignore[call-arg]  # pydantic-settings kwarg


def _assumed(chosen: Sourced[object], name: str) -> str:
    note = chosen.assumed(name)
    assert note is not None, f"no assumption on {name}: {chosen.notes}"
    return note.source


def _caveats(chosen: Sourced[object]) -> list[str]:
    return [n.text for n in chosen.notes if isinstance(n, Caveat)]


class TestUsage:
    def test_default_profile_is_the_seeds_phd_desktop(self) -> None:
        chosen = demand.resolve_usage(fakes.view(), UsageInputs())
        assert chosen.value.utilization == 0.15
        assert "default profile 'phd-desktop'" in _assumed(chosen, "utilization")

    def test_given_utilization_is_used_as_is(self) -> None:
        chosen = demand.resolve_usage(fakes.view(), UsageInputs(utilization=0.4))
        assert chosen.value.utilization == 0.4
        assert chosen.notes == ()

    def test_unknown_profile_is_not_found(self) -> None:
        with pytest.raises(NotFound):
            demand.resolve_usage(fakes.view(), UsageInputs(utilization_profile="nope"))


class TestElectricity:
    def test_no_price_and_no_region_is_the_registrys_default(self) -> None:
        chosen = site.resolve_electricity(fakes.view(), None, None, _settings())
        assert chosen.value == 0.12
        assert _assumed(chosen, "electricity_price_usd_per_kwh") == (
            defaults.ELECTRICITY_PRICE.source_text()
        )

    def test_a_deployments_own_default_is_not_credited_to_the_seed(self) -> None:
        settings = _settings(default_electricity_price_usd_per_kwh=0.3)
        chosen = site.resolve_electricity(fakes.view(), None, None, settings)
        assert chosen.value == 0.3
        assert "this deployment's setting" in _assumed(chosen, "electricity_price_usd_per_kwh")

    def test_a_given_price_wins(self) -> None:
        chosen = site.resolve_electricity(fakes.view(), 0.25, None, _settings())
        assert chosen.value == 0.25
        assert chosen.notes == ()


class TestDesktop:
    def test_the_seeds_desktop(self) -> None:
        spec = DesktopSpec.model_validate(SEED_DESKTOP)
        chosen = desktop.resolve_desktop(fakes.view(), spec)
        d = chosen.value.desktop
        assert (d.upfront_usd, d.gpu_power_w, d.gpu_count) == (2200, 350, 1)
        assert d.base_power_w == 100  # the barebone's, as the seed's CPU
        assert d.busy_power_w == 450
        assert d.lifetime_years == defaults.LIFETIME.value
        assert defaults.IRS_946 in _assumed(chosen, "desktop.lifetime_years")
        assert _caveats(chosen) == []

    def test_four_3090s_warn_of_the_power_supply(self) -> None:
        spec = DesktopSpec(gpu="rtx-3090", gpu_count=4, total_price_usd=8000)
        chosen = desktop.resolve_desktop(fakes.view(), spec)
        assert any("want a PSU of 1700 W" in w for w in _caveats(chosen))


class TestCloud:
    def test_the_seeds_spot_offer(self) -> None:
        chosen = cloud_offer.resolve_cloud(fakes.view(), CloudSpec(offer_id="aws-v100-spot-seed"))
        cloud = chosen.value
        assert cloud.rate.price_usd_per_hour == pytest.approx(2.14)
        assert cloud.gpu is not None and cloud.gpu.id == "v100-16gb"

    def test_a_price_far_from_its_peers_is_flagged(self) -> None:
        peers = [
            fakes.offer("x", "x", "v100-16gb", "2.0"),
            fakes.offer("y", "y", "v100-16gb", "2.2"),
            fakes.offer("z", "z", "v100-16gb", "2.4"),
            fakes.offer("z2", "z", "v100-16gb", "9.0"),
        ]
        view = fakes.view(peers)
        assert set(cloud_offer.price_outliers(view)) == {"z2"}
        chosen = cloud_offer.resolve_cloud(view, CloudSpec(offer_id="z2"))
        assert any("check it before relying on it" in w for w in _caveats(chosen))


class TestOfferSearch:
    """The offers a question in words reaches (app.steps.offer_search), over seed 001's
    world: its only offer is AWS's V100 spot at $2.14/h."""

    def test_a_desktop_is_compared_with_the_gpu_asked_for(self) -> None:

        view = fakes.view()
        cloud = CloudQuery(provider="aws", gpu=GpuMention(text="v100", ids=("v100-16gb",)))
        found = offer_for_desktop(view, cloud, view.gpu("rtx-3090"), 1)
        # The seed's offer is spot: no on-demand V100 exists, and none was named: the
        # rule's on-demand default finds nothing, so no offer is chosen.
        assert found.value is None
        spot = CloudQuery(provider="aws", pricing_model="spot", gpu=cloud.gpu)
        found = offer_for_desktop(view, spot, view.gpu("rtx-3090"), 1)
        assert found.value is not None and found.value.id == "aws-v100-spot-seed"
        chosen = found.assumed("cloud.offer_id")
        assert chosen is not None and "the comparable offer of 1" in chosen.source
        assert not [n for n in found.notes if isinstance(n, Caveat)]  # the GPU asked for

    def test_a_rental_names_its_default_pricing_and_other_clouds(self) -> None:

        extra = fakes.offer("lambda-3090", "lambda", "rtx-3090", "0.50")
        view = fakes.view([extra])
        found = rental_offers(view, CloudQuery(provider="runpod"), view.gpu("rtx-3090"))
        assert [o.id for o in found.value] == ["lambda-3090"]
        pricing = found.assumed("pricing_model")
        assert pricing is not None and pricing.value == "on_demand"
        assert Caveat("the catalog has no on_demand runpod offer of rtx-3090: other clouds") in (
            found.notes
        )

    def test_spot_reads_as_interruptible_capacity(self) -> None:

        pod = fakes.offer("runpod-3090-int", "runpod", "rtx-3090", "0.22")
        view = fakes.view([pod.model_copy(update={"pricing_model": "interruptible"})])
        found = matching_offers(
            view, CloudQuery(provider="runpod", pricing_model="spot"), ["rtx-3090"]
        )
        assert [o.id for o in found.value] == ["runpod-3090-int"]
        said = found.assumed("pricing_model")
        assert said is not None and said.value == "interruptible"
