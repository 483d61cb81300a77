"""Use the client generated from the committed openapi.json against a live server and assert
the numbers (seed 001 break-even, a Paperspace 2022 run cost, carbon, a catalog listing).

    python scripts/client_check.py BASE_URL
"""

from __future__ import annotations

import datetime
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.ecb: the ECB data

from gpucost_client import Client
from gpucost_client.api.admin import admin_get_barebones
from gpucost_client.api.calculations import (
    calculations_compute_break_even,
    calculations_compute_carbon,
    calculations_compute_compare,
    calculations_compute_owned_rates,
    calculations_compute_run_cost,
    calculations_compute_sweep,
)
from gpucost_client.api.catalog import catalog_list_cloud_offers, catalog_list_gpus
from gpucost_client.api.charts import charts_query_chart
from gpucost_client.api.query import query_answer_query
from gpucost_client.api.scenarios import (
    scenarios_create_scenario,
    scenarios_delete_scenario,
    scenarios_get_scenario,
    scenarios_scenario_result,
)
from gpucost_client.models import (
    BreakEvenRequest,
    BreakEvenResult,
    CarbonRequest,
    CarbonResult,
    CloudOffersPublic,
    CloudSpec,
    CompareRequest,
    CompareResult,
    CompareWorkload,
    DesktopSpec,
    GpusPublic,
    OwnedRatesRequest,
    OwnedRatesResult,
    PricingModel,
    Problem,
    Provider,
    QueryAnswer,
    RunCostRequest,
    RunCostResult,
    RunOption,
    ScenarioCreate,
    ScenarioPublic,
    ScenarioResult,
    SweepRequest,
    SweepResult,
    Workload,
)
from gpucost_client.types import File

from tests import ecb  # noqa: E402


def main(base_url: str) -> None:
    client = Client(base_url=base_url, raise_on_unexpected_status=True)

    # Seed 001: $2,200 desktop, 350 W + 100 W, $0.12/kWh, 15 %, $2.14/h -> 293 days, 591 kWh.
    seed = BreakEvenRequest(
        desktop=DesktopSpec(gpu="rtx-3090", total_price_usd=2200),
        cloud=CloudSpec(offer_id="aws-p3.2xlarge-spot-seed-2020"),
        utilization=0.15,
        electricity_price_usd_per_kwh=0.12,
    )
    be = calculations_compute_break_even.sync(client=client, body=seed)
    assert isinstance(be, BreakEvenResult), be
    assert abs(be.break_even_days - 293) <= 1, be.break_even_days
    assert round(be.desktop.energy_kwh_per_year) == 591
    assert round(be.desktop.cost_usd_per_year) == 71
    # The same desktop resold for $1,000 after 3 years, answered in EUR at the ECB's mean rate
    # over the latest half-year published: (2200 - 1000) / (2.14 x 3.6 - 0.45 x 3.6 x 0.12)
    # = 159.80 days; EUR 2,200 / rate upfront.
    resold = seed.to_dict() | {"currency": "EUR"}
    resold["desktop"] |= {"resell_after_years": 3, "resale_value_usd": 1000}
    eur = calculations_compute_break_even.sync(
        client=client, body=BreakEvenRequest.from_dict(resold)
    )
    assert isinstance(eur, BreakEvenResult), eur
    assert abs(eur.break_even_days - 1200 / (2.14 * 3.6 - 0.45 * 3.6 * 0.12)) <= 0.005, eur
    rate, _ = ecb.latest_half_year("EUR")
    assert eur.currency_rate.currency == "EUR", eur.currency_rate
    assert abs(eur.currency_rate.usd_per_unit / rate - 1) < 1e-5, eur.currency_rate
    assert abs(eur.in_currency.upfront - 2200 / rate) < 0.01, eur.in_currency.upfront

    # Seed 004: EfficientNet on the A6000, 627 s x $1.89/h = $0.33; 0.007 per batch item.
    rc = calculations_compute_run_cost.sync(
        client=client,
        body=RunCostRequest(
            workload=Workload(benchmark="efficientnet"),
            options=[RunOption(offer_id="paperspace-gradient-a6000-on-demand-2022")],
        ),
    )
    assert isinstance(rc, RunCostResult), rc
    assert round(rc.options[0].cost_usd, 2) == 0.33
    assert abs(rc.options[0].cost_per_batch_item_usd - 0.007) <= 0.0005

    # A year of the seed's desktop at the IEA 2019 world average of 475 g/kWh.
    co = calculations_compute_carbon.sync(
        client=client,
        body=CarbonRequest(
            gpu="rtx-3090", utilization=0.15, days=365, carbon_intensity_g_per_kwh=475
        ),
    )
    assert isinstance(co, CarbonResult), co
    assert abs(co.energy_kwh - 591.3) < 1e-6 and abs(co.co2e_kg - 280.8675) < 1e-6

    offers = catalog_list_cloud_offers.sync(
        client=client, provider=Provider.AWS, gpu="V100", pricing_model=PricingModel.SPOT, limit=5
    )
    assert isinstance(offers, CloudOffersPublic) and offers.count > 0
    assert all(
        o.gpu_id == "v100-16gb" and o.pricing_model == PricingModel.SPOT for o in offers.data
    )
    gpus = catalog_list_gpus.sync(client=client, limit=500)
    assert isinstance(gpus, GpusPublic) and gpus.count >= 40

    # Errors come back as the generated Problem model.
    bad = calculations_compute_carbon.sync_detailed(
        client=Client(base_url=base_url), body=CarbonRequest(gpu="h100", hours=1)
    )
    assert bad.status_code == 422 and isinstance(bad.parsed, Problem), bad
    assert set(bad.parsed.candidates) >= {"h100-pcie", "h100-sxm"}
    # The chat endpoint: the seed's question in words (its $2,200 desktop and its cloud named)
    # gives the seed's answer; without a cloud, today's comparable offer is the default and
    # says so.
    seed_q = "break-even for a $2200 3090 desktop vs $2.14/h at 15% util"
    qa = query_answer_query.sync(client=client, q=seed_q)
    assert isinstance(qa, QueryAnswer) and qa.answered, qa
    # the headline says what it rests on: the desktop at the price given, the cloud price
    assert qa.headline == (
        "Break-even: 293 days, a $2,200.00 box (your price) with 1x rtx-3090, "
        "vs $2.14/h (your price), at 15% utilization"
    ), qa.headline
    today = query_answer_query.sync(client=client, q="break-even for 3090 at 15% util")
    assert isinstance(today, QueryAnswer) and today.answered, today
    assert "cloud.offer_id" in {d.name for d in today.defaults}, today.defaults
    # Compare: seed 004's EfficientNet on the A6000 (627 s) as the reference run.
    cmp_ = calculations_compute_compare.sync(
        client=client,
        body=CompareRequest(
            workload=CompareWorkload(benchmark="efficientnet", gpu="rtx-a6000"),
            runs_per_month=30,
            limit=5,
        ),
    )
    assert isinstance(cmp_, CompareResult) and len(cmp_.options) == 5, cmp_
    assert abs(cmp_.reference_hours_per_month - 30 * 627 / 3600) < 1e-6
    totals = [o.total_cost_usd for o in cmp_.options]
    assert totals == sorted(totals)
    # Sweep: seed 001's 292.96 days at 15 % (column 15 of 1 %..100 %).
    sw = calculations_compute_sweep.sync(
        client=client,
        body=SweepRequest(
            desktop=DesktopSpec(gpu="rtx-3090", total_price_usd=2200),
            cloud=CloudSpec(price_usd_per_hour=2.14),
            electricity_prices_usd_per_kwh=[0.12],
        ),
    )
    assert isinstance(sw, SweepResult) and sw.break_even_days[0][14] == 292.96, sw
    png = charts_query_chart.sync(client=client, q="break-even for 3090 at 15% util")
    assert isinstance(png, File) and png.payload.read(8) == b"\x89PNG\r\n\x1a\n"
    # A saved scenario, owned by an API key (scope `scenarios`): without one, 401; with it,
    # create, evaluate as of a past day (the seed's 292.96 days), delete.
    anonymous = scenarios_create_scenario.sync_detailed(
        client=Client(base_url=base_url), body=ScenarioCreate(name="x", break_even=seed)
    )
    assert anonymous.status_code == 401, anonymous.status_code
    owner = Client(
        base_url=base_url,
        raise_on_unexpected_status=True,
        headers={"X-API-Key": os.environ["GPUCOST_CLIENT_KEY"]},
    )
    saved = scenarios_create_scenario.sync(
        client=owner,
        body=ScenarioCreate(
            name="client check",
            break_even=seed,
        ),
    )
    assert isinstance(saved, ScenarioPublic), saved
    res = scenarios_scenario_result.sync(saved.id, client=client, as_of=datetime.date(2025, 6, 30))
    assert isinstance(res, ScenarioResult) and res.break_even.break_even_days == 292.96, res
    assert res.break_even.prices.oldest_price_date == datetime.date(2020, 9, 7)
    scenarios_delete_scenario.sync_detailed(saved.id, client=owner)
    gone = scenarios_get_scenario.sync_detailed(saved.id, client=Client(base_url=base_url))
    assert gone.status_code == 404
    # Owned GPUs: seed 001's desktop kept the IRS's 5-year recovery period, no resale:
    # 2200 / (5 x 8760 h x 0.15) + 0.45 kW x $0.12/kWh per GPU-hour.
    owned = calculations_compute_owned_rates.sync(
        client=client,
        body=OwnedRatesRequest.from_dict(
            {
                "machines": [{"gpu": "rtx-3090", "total_price_usd": 2200}],
                "utilization": 0.15,
                "electricity_price_usd_per_kwh": 0.12,
            }
        ),
    )
    assert isinstance(owned, OwnedRatesResult), owned
    want = 2200 / (5 * 8760 * 0.15) + 0.45 * 0.12
    assert abs(owned.rates[0].cost_usd_per_gpu_hour - want) < 1e-6, owned.rates[0]
    # Admin writes without a key: 401 problem.
    denied = admin_get_barebones.sync_detailed(
        "barebone-1gpu-2016", client=Client(base_url=base_url)
    )
    assert denied.status_code == 401
    print(
        "generated client: break-even, run cost, carbon, catalog, query, compare, sweep, "
        "chart, scenarios, owned rates, admin auth and errors OK"
    )


if __name__ == "__main__":
    main(sys.argv[1])
