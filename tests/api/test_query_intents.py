"""Chat intents added for issue 19, end to end through GET /v1/query: a desktop's electricity
bill, two GPUs side by side, Colab plans, the GPU list, and a rental period without a runtime.
Expected values come from the seeds and the catalog's own rows (read through the API), not
from the answers."""

from __future__ import annotations

import datetime as dt
import json
import math
import re

import pytest

from app.catalog.sources.files import CURATED, read_csv
from tests import ecb
from tests.electricity_sources import eurostat_eur_per_kwh
from tests.published import published_time_factors
from tests.query_corpus import CORPUS
from tests.query_corpus_forums import FORUMS
from tests.query_corpus_own_terms import OWN_TERMS
from tests.query_corpus_own_terms2 import OWN_TERMS_2
from tests.query_corpus_people import PEOPLE
from tests.seed_values import SEED_001

S = SEED_001


def ask(client, q: str) -> dict:
    r = client.get("/v1/query", params={"q": q})
    assert r.status_code == 200, r.text
    return r.json()


def offers(client, **params) -> list[dict]:
    body = client.get("/v1/cloud-offers", params={"limit": 500, **params}).json()
    assert body["count"] <= 500, body["count"]
    return body["data"]


def test_every_corpus_question_is_answered_or_refused_as_expected(client):
    """The corpus end to end: each question a person would expect answered is answered (no
    refusal, no 5xx), each that must be refused is refused."""
    wrong = []
    for text, expected in CORPUS + PEOPLE + FORUMS + OWN_TERMS + OWN_TERMS_2:
        if not text or len(text) > 500:
            continue  # an empty or over-long q is the endpoint's own 422
        if "e2e_gap" in expected:
            continue  # read right, not answered yet
        body = ask(client, text)
        if body["answered"] is bool(expected.get("refused")):
            wrong.append((text, body["headline"]))
        shown = [body["headline"], *(f["value"] for f in body["facts"])]
        shown += [d["source"] for d in body["defaults"]]
        if any(REPR.search(line) for line in shown[: 1 + len(body["facts"])]):
            wrong.append((text, "repr: " + body["headline"]))  # issue 34: no Python repr
        if any(TEMPLATE.search(line) for line in shown):  # issue 45: '{overhead:.4g}' leaked
            wrong.append((text, "template: " + next(x for x in shown if TEMPLATE.search(x))))
        used = json.dumps([body["request"], body["interpretation"]["gpu"]]).lower()
        if said := [w for w in body["ignored"] if len(w) > 2 and w in used]:
            wrong.append((text, f"ignored but used: {said}"))  # issue 45: 'lora, llama'
    assert not wrong, wrong


# A str.format field left unformatted ("{overhead:.4g}", "{gpu}").
TEMPLATE = re.compile(r"\{[a-z_][a-z0-9_]*(?::[^}]*)?\}")


# A Python dict, list or tuple repr, or a None, as printed.
REPR = re.compile(r"\{'|\['|', '|\bNone\b")


def test_no_silent_substitution(client):
    """Issue 34: a GPU the named provider does not offer is said in the headline, with what
    was used instead."""
    runpod_5080 = offers(client, gpu="rtx-5080", provider="runpod")
    assert not runpod_5080  # the catalog has none: the answer must say so
    body = ask(client, "Buy a 5080 box or rent on RunPod?")
    assert body["answered"] and "runpod has no offer of rtx-5080" in body["headline"]
    used = client.get(f"/v1/cloud-offers/{body['request']['cloud']['offer_id']}").json()
    assert used["instance_type"] in body["headline"]
    assert any(f["label"] == "Speed" for f in body["facts"])
    body = ask(client, "break-even in euros for a 4090 vs tensordock")
    assert "TensorDock is not in the catalog" in body["headline"]
    assert "compared with" in body["headline"] and body["ignored"] == []
    body = ask(client, "colab pro+ vs buying a 5090")
    assert body["intent"] == "break_even" and body["answered"]
    assert "colab colab-pro-plus has no offer of rtx-5090" in body["headline"]


# --- electricity ---------------------------------------------------------------------------


def test_electricity_reproduces_seed_001(client):
    # seed 001: (350 W + 100 W) x 15 % x 24 h x 365 = 591.3 kWh a year, at $0.12/kWh $70.96
    body = ask(client, "electricity cost of a 3090 at 15% util at $0.12/kWh")
    assert body["answered"] and body["intent"] == "electricity", body
    res = body["result"]
    kwh_year = (S["gpu_w"] + S["cpu_w"]) / 1000 * 0.15 * 24 * 365
    assert res["energy_kwh_per_year"] == pytest.approx(kwh_year)
    assert res["cost_usd_per_year"] == pytest.approx(kwh_year * 0.12)
    assert res["cost_usd_per_month"] == pytest.approx(kwh_year * 0.12 / 12)
    assert body["endpoint"] == "/v1/electricity"
    # the typed request POSTed as is gives the same answer
    again = client.post(body["endpoint"], json=body["request"]).json()
    assert again["cost_usd_per_year"] == res["cost_usd_per_year"]
    # the bill does not depend on the desktop's price: no price default, no price-age warning
    assert not any("price" in a["name"] for a in res["assumptions"])
    assert not res["warnings"]


def test_electricity_24_7_in_germany_in_euros(client):
    body = ask(client, "what does it cost to run a 4090 24/7 in germany, in euros")
    res = body["result"]
    assert body["intent"] == "electricity" and res["utilization"] == 1.0
    gpu = client.get("/v1/gpus/rtx-4090").json()
    de = client.get("/v1/regions/de").json()
    # Eurostat's 2025-S2 price at the default non-household tariff (band IC excluding VAT):
    # the answer is in EUR, so the bill is that price itself (issue 48: one conversion per
    # figure, none here); its USD figure is at the answer's rate
    eur_per_kwh = eurostat_eur_per_kwh("DE", "non-household", "2025-S2")
    assert de["electricity_non_household_local"] == eur_per_kwh
    eur, _ = ecb.latest_half_year("EUR")
    usd_per_kwh = eur_per_kwh * eur
    watts = res["busy_power_w"]
    assert watts >= gpu["tdp_w"]  # the GPU's TDP plus the machine, at the wall
    # the default barebone is the cheapest that holds one GPU (barebones.csv); its base
    # power is added, and without a PSU efficiency component power is wall power (seed 001)
    rows = [r for r in read_csv(CURATED / "barebones.csv") if int(r["gpu_slots"]) >= 1]
    cheapest = min(rows, key=lambda r: float(r["price_usd"]))
    psu = float(cheapest["psu_efficiency"] or 1.0)
    assert watts == pytest.approx((gpu["tdp_w"] + float(cheapest["base_power_w"])) / psu)
    kwh_month = watts / 1000 * 24 * 365 / 12
    assert res["energy_kwh_per_month"] == pytest.approx(kwh_month)
    assert res["cost_usd_per_month"] == pytest.approx(kwh_month * usd_per_kwh, rel=1e-5)
    assert res["cost_per_month_in_currency"] == pytest.approx(kwh_month * eur_per_kwh, rel=1e-5)
    assert "EUR" in body["headline"]


def test_electricity_refuses_bad_input(client):
    assert client.post("/v1/electricity", json={"desktop": {}}).status_code == 422
    r = client.post("/v1/electricity", json={"desktop": {"gpu": "rtx-3090"}, "days": -1})
    assert r.status_code == 422
    r = client.post("/v1/electricity", json={"desktop": {"gpu": "rtx-9999"}})
    assert r.status_code == 404
    # fields of other calculations are not silently ignored: the bill has no workload
    body = {"desktop": {"gpu": "rtx-3090"}, "memory_preset": "research"}
    assert client.post("/v1/electricity", json=body).status_code == 422


# --- two GPUs side by side -----------------------------------------------------------------


def _cheapest_on_demand(client, gpu: str) -> float:
    rows = [
        o for o in offers(client, gpu=gpu, pricing_model="on_demand") if o["provider"] != "colab"
    ]
    single = [o for o in rows if o["gpu_count"] == 1] or rows
    return min(o["price_usd_per_hour"] / o["gpu_count"] for o in single)


def test_gpu_compare_prices_each_gpu_and_a_unit_of_work(client):
    body = ask(client, "a6000 vs a100 cost per hour")
    assert body["answered"] and body["intent"] == "gpu_compare", body
    res = body["result"]
    price_a = _cheapest_on_demand(client, "rtx-a6000")
    price_b = _cheapest_on_demand(client, "a100-40gb")
    assert res["price_usd_per_gpu_hour"] == pytest.approx([price_a, price_b])
    # seed 004 ran both on three benchmarks: the factor is the geometric mean of the
    # A100's runtime over the A6000's (the seed's seconds, as the catalog lists them)
    ratios = []
    for bench in client.get("/v1/benchmarks").json()["data"]:
        t = {r["gpu_id"]: r["seconds"] for r in bench["results"] if r["seconds"]}
        if "rtx-a6000" in t and "a100-40gb" in t:
            ratios.append(t["a100-40gb"] / t["rtx-a6000"])
    assert len(ratios) == 3
    # and Lambda's four 2023 training comparisons holding both (the shipped data file)
    ratios += published_time_factors("rtx-a6000", "a100-40gb")
    factor = math.exp(sum(map(math.log, ratios)) / len(ratios))
    assert res["basis"] == "benchmark"
    assert res["time_factor"] == pytest.approx(factor)
    assert res["cost_usd_per_reference_hour"] == pytest.approx([price_a, price_b * factor])


def test_gpu_compare_family_names_say_which_variant(client):
    body = ask(client, "is an h100 worth it over an a100")
    assert body["intent"] == "gpu_compare" and body["answered"]
    # "h100" is a family: one variant, stated
    assert any(d["name"].startswith("gpu") for d in body["defaults"])


# --- Colab, the GPU list --------------------------------------------------------------------


def test_colab_plan_price(client):
    # cloud-and-colab-notes.md: Colab Pro, 100 compute units a month, $9.99 (TechCrunch 2022)
    body = ask(client, "how much is colab pro")
    assert body["intent"] == "colab" and body["answered"]
    assert body["headline"] == "Colab Pro: $9.99 a month with 100 compute units"
    plans = ask(client, "colab plans")
    listed = [r["id"] for r in read_csv(CURATED / "colab_plans.csv")]
    assert sorted(plans["result"]) == sorted(listed)


def test_gpu_list_counts_the_catalog(client):
    body = ask(client, "what gpus do you know")
    gpus = client.get("/v1/gpus", params={"limit": 500}).json()["data"]
    assert body["intent"] == "gpu_list" and len(body["result"]) == len(gpus)
    assert body["headline"].startswith(f"I know {len(gpus)} GPUs")


# --- a rental period without a runtime --------------------------------------------------------


def test_gpus_for_a_week_cost_the_week(client):
    """Issue 34: 8 GPUs for a week are 8 GPUs rented for 168 h (an 8-GPU instance, or 8
    one-GPU instances), never one GPU for 8 weeks."""
    body = ask(client, "8 H100s for a week")
    assert body["intent"] == "run_cost" and body["answered"]
    defaults = {d["name"] for d in body["defaults"]}
    assert "hours" in defaults and any(d.startswith("gpu") for d in defaults)
    rows = body["result"]["rentals"]
    assert rows == sorted(rows, key=lambda r: r["cost_usd"])
    for row in rows:
        offer = client.get(f"/v1/cloud-offers/{row['offer_id']}").json()
        assert offer["pricing_model"] == "on_demand" and offer["gpu_id"] == "h100-sxm"
        assert row["instances"] * offer["gpu_count"] >= 8 and row["hours"] == 168
        want = offer["price_usd_per_hour"] * row["instances"] * 168
        assert row["cost_usd"] == pytest.approx(want, rel=1e-6)
    lam = offers(client, gpu="h100-sxm", provider="lambda", pricing_model="on_demand")
    eight = min(o["price_usd_per_hour"] for o in lam if o["gpu_count"] == 8)
    one = ask(client, "how much does 8x H100 for a week cost on lambda")
    assert one["result"]["rentals"][0]["cost_usd"] == pytest.approx(eight * 168, rel=1e-6)


def test_a_year_at_a_utilization_is_its_busy_hours(client):
    body = ask(client, "a year of an a10g on aws at 25%")
    assert body["intent"] == "run_cost"
    cheapest = min(
        o["price_usd_per_hour"]
        for o in offers(client, gpu="a10g", provider="aws", pricing_model="on_demand")
        if o["gpu_count"] == 1
    )
    best = body["result"]["rentals"][0]
    assert best["hours"] == pytest.approx(365 * 24 * 0.25)
    assert math.isclose(best["cost_usd"], cheapest * 365 * 24 * 0.25, rel_tol=1e-6)


def test_gpu_hours_are_a_total(client):
    """Issue 34: "80 gpu-hours on a lambda a100" is 80 x the price per GPU-hour."""
    body = ask(client, "80 gpu-hours on a lambda a100")
    assert body["intent"] == "run_cost" and body["answered"]
    lam = offers(client, gpu="a100-40gb", provider="lambda", pricing_model="on_demand")
    per_gpu = min(o["price_usd_per_hour"] / o["gpu_count"] for o in lam)
    assert body["result"]["rentals"][0]["cost_usd"] == pytest.approx(80 * per_gpu, rel=1e-6)


def test_instances_by_name(client):
    for name, provider in (
        ("p4d.24xlarge", "aws"),
        ("gpu_8x_h100_sxm5", "lambda"),
        ("ND96isr_H100_v5", "azure"),
    ):
        body = ask(client, f"{name} for 3 days")
        assert body["answered"], body["headline"]
        row = body["result"]["rentals"][0]
        assert row["provider"] == provider and row["instance_type"].lower().endswith(name.lower())
        offer = client.get(f"/v1/cloud-offers/{row['offer_id']}").json()
        assert row["cost_usd"] == pytest.approx(offer["price_usd_per_hour"] * 72, rel=1e-6)
    # not in the catalog: 8 of its 1-GPU sibling, said in the headline
    body = ask(client, "a3-highgpu-8g for a week")
    assert "a3-highgpu-8g is not in the catalog" in body["headline"]
    assert body["result"]["rentals"][0]["instances"] == 8


def test_electricity_needs_no_desktop_price(client):
    # the A100 has no desktop price in the catalog; its bill needs only its power
    gpu = client.get("/v1/gpus/a100-40gb").json()
    assert gpu["price_new_usd"] is None
    r = client.post("/v1/electricity", json={"desktop": {"gpu": "a100-40gb"}, "utilization": 0.5})
    assert r.status_code == 200, r.text
    # a datacenter card: its power model is the cheapest server barebone's
    assert gpu["form_factor"] == "datacenter_pcie"
    rows = [row for row in read_csv(CURATED / "barebones.csv") if row["kind"] == "server"]
    cheapest = min(rows, key=lambda row: float(row["price_usd"]))
    watts = gpu["tdp_w"] + float(cheapest["base_power_w"])  # no PSU figure: wall power
    assert r.json()["energy_kwh_per_day"] == pytest.approx(watts / 1000 * 24 * 0.5)


def test_a_budget_and_students_are_a_fleet_plan(client):
    """Issue 34: "$60k for 3 years and 8 students" is a plan: the budget caps purchases and
    8 students are 8 GPUs busy at seed 001's PhD-desktop utilization (15 %) of 730 h."""
    body = ask(client, "we have $60k for 3 years and 8 students, how many 4090s should we buy")
    assert body["intent"] == "plan" and body["answered"], body["headline"]
    req = body["request"]
    assert req["gpu"] == "rtx-4090" and req["months"] == 36
    assert req["constraints"]["budget_usd"] == 60_000
    assert req["baseline_gpu_hours_per_month"] == pytest.approx(8 * 0.15 * 730)
    assert "budget $60,000.00" in body["headline"]


def test_a_budget_alone_says_what_it_buys(client):
    body = ask(client, "budget of 40k EUR for 4090s over 2 years")
    assert body["intent"] == "plan" and body["answered"]
    assert body["interpretation"]["budget_in_currency"] == 40_000
    assert body["interpretation"]["currency"] == "EUR"
    eur, _ = ecb.latest_half_year("EUR")
    assert body["request"]["constraints"]["budget_usd"] == pytest.approx(40_000 * eur, rel=1e-4)
    assert body["headline"].startswith("40,000.00 EUR buys")


def test_a_budget_too_small_for_any_desktop_says_so_not_zero_desktops(client):
    """'$2,000 buys 0 desktops of 1x rtx-a6000': the headline names a desktop only when the
    budget buys one; else it says the cheapest candidate's price, from the plan's result."""
    body = ask(client, "what gpu should I buy with a budget of $2000")
    assert body["intent"] == "plan" and body["answered"], body["headline"]
    res = client.post(body["endpoint"], json=body["request"]).json()
    cheapest = min(res["desktops"], key=lambda d: d["upfront_usd"])
    assert "buys 0 desktops" not in body["headline"]
    if cheapest["upfront_usd"] > 2000:
        assert (
            f"the cheapest, {cheapest['label']}, costs ${cheapest['upfront_usd']:,.2f}"
            in (body["headline"])
        )


@pytest.mark.parametrize(
    ("text", "gpu", "said"),
    [
        ("break-even for a 3o90 at 20% util", "rtx-3090", "'3o90' read as 3090"),
        ("4o9o vs runpd", "rtx-4090", "'runpd' read as runpod"),
        ("a1oo on lamda for 10 hours", "a100-40gb", "'lamda' read as lambda"),
    ],
)
def test_near_misses_are_read_and_said(client, text, gpu, said):
    """Issue 34: a GPU typed with the letter o for zero, or a provider one letter off, is
    read, and the headline says how."""
    body = ask(client, text)
    assert body["answered"], body["headline"]
    it = body["interpretation"]
    assert gpu in (it["gpu"] or it["cloud"]["gpu"])["ids"]
    assert said in body["headline"] and said in it["corrected"]


def test_an_unknown_gpu_is_named_with_the_closest(client):
    body = ask(client, "break-even GTX 9999")
    assert body["answered"] is False
    assert body["headline"].startswith("unknown GPU 'GTX 9999'; did you mean ")
    assert body["suggestions"] and all(
        client.get(f"/v1/gpus/{g}").status_code == 200 for g in body["suggestions"]
    )


def test_a_spot_rental_carries_its_interruption_overhead(client):
    # Issue 31: spot is never priced as uninterruptible. 100 T4 GPU-hours on AWS spot bill a
    # little more than 100 x the price: the re-done work of AWS's published band (stated).
    body = ask(client, "price of 100 gpu-hours of t4 spot on aws")
    assert body["answered"], body
    row = body["result"]["rentals"][0]
    assert row["pricing_model"] == "spot"
    per_gpu_hour = row["price_usd_per_hour"] / row["gpus_per_instance"]
    assert row["cost_usd"] > 100 * per_gpu_hour
    facts = {f["label"]: f["value"] for f in body["facts"]}
    assert "AWS Spot Instance Advisor" in facts["Interruptions"]


def test_which_gpus_hold_a_job_counts_gpu_models_and_says_a_short_run_in_minutes(client):
    """'39 GPUs hold it' read as a count of cards: the headline counts the catalog's GPU
    models that hold the job, out of those estimated; a 1M-token LoRA (2 x 3 x 8.03e9 x 1e6
    FLOPs, minutes on any modern card) is timed in minutes, not '0.1 h'."""
    body = ask(client, "cost to fine-tune llama 3 8b with lora on 1M tokens")
    sent = client.post(body["endpoint"], json=body["request"])  # what chat sent, as the API answers
    rows = sent.json()["estimates"]
    held = sum(e["fits"] for e in rows)
    assert f": {held} of {len(rows)} catalog GPU models hold it (" in body["headline"]
    best = next(e for e in rows if e["fits"])
    assert best["runtime_s"] < 3600
    assert f"{best['gpu_id']}, {best['runtime_s'] / 60:.0f} min for $" in body["headline"]
    one = ask(client, "cost to fine-tune llama 3 8b with lora on 1B tokens on a 4090")
    assert ": rtx-4090 holds it (" in one["headline"], one["headline"]


def test_each_run_cost_option_names_the_oldest_price_it_rests_on(client):
    """A run-cost answer lists options priced on different days: each carries its own oldest
    catalog price (an offer's date, else the card's or the barebone's), and the headline's
    staleness note is the cheapest option's, not the oldest of the whole list."""
    body = ask(client, "cost of 100 hours on a 3090")
    res = client.post(body["endpoint"], json=body["request"]).json()
    for o in res["options"]:
        if o["kind"] == "cloud":
            offer = client.get(f"/v1/cloud-offers/{o['offer_id']}").json()
            assert (o["oldest_price"], o["oldest_price_date"]) == (
                f"offer {o['offer_id']}",
                offer["as_of"],
            )
        else:
            gpu = client.get("/v1/gpus/rtx-3090").json()
            barebones = client.get("/v1/barebones").json()["data"]
            dates = [b["as_of"] for b in barebones] + [gpu["as_of"]]
            assert o["oldest_price_date"] is not None and o["oldest_price_date"] in dates
            assert o["oldest_price"].split()[0] in ("barebone", "gpu"), o["oldest_price"]
    # Each provider at its newest prices: no 1x RTX 3090 offer of the same provider is newer.
    listed = offers(client, gpu="rtx-3090", pricing_model="on_demand")
    for o in (o for o in res["options"] if o["kind"] == "cloud"):
        provider = o["offer_id"].split("-")[0]
        same = [x for x in listed if x["provider"] == provider and x["gpu_count"] == 1]
        assert o["oldest_price_date"] == max(x["as_of"] for x in same), o["offer_id"]
    best = min(res["options"], key=lambda o: o["cost_usd"])
    today = dt.datetime.now(dt.UTC).date()
    age = (today - dt.date.fromisoformat(best["oldest_price_date"])).days
    assert ("rests on a price" in body["headline"]) == (age > 365), body["headline"]
    if age > 365:
        assert best["oldest_price"] in body["headline"]


def test_a_months_gpu_hours_beyond_one_gpu_are_priced_as_gpu_hours(client):
    """'the cheapest way to get 1000 gpu hours a month of h100': more than one GPU's month
    (730 h), so the month's 1,000 GPU-hours on the cheapest H100 rental per GPU-hour, any
    instance size (it said 'utilization must be at most 100 %' before)."""
    body = ask(client, "what's the cheapest way to get 1000 gpu hours a month of h100")
    assert body["answered"], body["headline"]
    best = body["result"]["rentals"][0]
    per_gpu_hour = best["price_usd_per_hour"] / best["gpus_per_instance"]
    listed = offers(client, gpu=best["gpu_id"], pricing_model="on_demand")
    assert per_gpu_hour == pytest.approx(
        min(o["price_usd_per_hour"] / o["gpu_count"] for o in listed if o["price_usd_per_hour"])
    )
    assert best["cost_usd"] == pytest.approx(1000 * per_gpu_hour)
    assert body["headline"].startswith(f"1,000 GPU-hours a month on {best['gpu_id']}: $")


@pytest.mark.parametrize(
    ("text", "per_day"),
    [
        ("serve llama 3 70b at 10 requests per second", 10 * 86_400),
        ("serve llama 3 8b on a 4090 at 500 requests a minute", 500 * 1_440),
        ("serve mistral 7b at 5 rps", 5 * 86_400),
        ("llama 3 8b 20k requests/day on an l4", 20_000),
    ],
)
def test_a_request_rate_is_a_daily_serving_volume(client, text, per_day):
    """'10 requests per second' was not understood ('10' ignored): it is a serving load,
    requests a day x llama-bench's tg128 default of 128 output tokens a request, stated."""
    body = ask(client, text)
    assert body["answered"] and body["intent"] == "llm_estimate", body["headline"]
    assert body["request"]["tokens_per_day"] == pytest.approx(per_day * 128)
    stated = {d["name"]: d["source"] for d in body["defaults"]}
    assert "128 output tokens each" in stated["tokens_per_day"]
    assert not body["ignored"], body["ignored"]
    sent = client.post(body["endpoint"], json=body["request"]).json()
    serving = next(e for e in sent["estimates"] if e["serving"])["serving"]
    if serving["replicas"] > 1:  # 110.6M tokens a day of a 70B model: more than a day's work
        assert f"on {serving['replicas']} replicas of " in body["headline"]


def test_an_electricity_bill_is_given_over_the_period_asked(client):
    """'run a 4090 24/7 for a year' answered 'a month': the headline is the year's bill,
    the busy wall power x 8,760 h (365 days, 24/7)."""
    body = ask(client, "how much does it cost to run a 4090 24/7 for a year in california")
    res = client.post(body["endpoint"], json=body["request"]).json()
    assert res["days"] == 365 and res["utilization"] == 1.0
    assert res["energy_kwh"] == pytest.approx(res["busy_power_w"] * 8760 / 1000)
    cost = f"${res['cost_usd']:,.2f}"
    assert body["headline"].startswith(f"Electricity: {cost} a year ({res['energy_kwh']:,.0f} kWh)")


@pytest.mark.parametrize(
    ("text", "hardware"),
    [
        ("what's the embodied carbon of an h100", "owned"),
        ("embodied carbon of 100 h100 hours on aws", "rented"),
    ],
)
def test_an_embodied_carbon_question_leads_with_the_hardwares_own(client, text, hardware):
    """'embodied carbon of an h100' led with a year's electricity: the headline is the
    hardware's manufacturing emissions (central and one-sigma range), then the share the
    period carries; a provider named means rented GPUs (their usage share)."""
    body = ask(client, text)
    res = client.post(body["endpoint"], json=body["request"]).json()
    assert res["hardware"] == hardware
    whole, part = res["hardware_embodied"], res["embodied"]
    assert part["co2e_kg"] == pytest.approx(whole["co2e_kg"] * res["embodied_share"], rel=1e-6)
    assert whole["low_co2e_kg"] < whole["co2e_kg"] < whole["high_co2e_kg"]
    assert body["headline"].startswith(
        f"Embodied carbon of 1x {res['gpu_id']} ({hardware}): {whole['co2e_kg']:,.0f} kg CO2e "
        f"to manufacture ({whole['low_co2e_kg']:,.0f}-{whole['high_co2e_kg']:,.0f})"
    )
