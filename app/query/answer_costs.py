"""Chat answers that cost something: break-even, run cost (and cost per batch item),
carbon and a desktop's electricity. Each fills what the question left out with a stated
default and asks the engine."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from app import costing, usecases
from app.catalog.view import CatalogView
from app.models.query import QueryAnswer
from app.query.answer_common import (
    MAX_OPTIONS,
    Answer,
    cloud_text,
    cloud_words,
    desktop_spec,
    dump,
    in_currency_text,
    one_gpu,
    period_text,
    place_fields,
    refuse,
    usage_fields,
    validated,
    where_fields,
)
from app.query.intents import RENTING
from app.query.names import UNLISTED
from app.settings import Settings
from app.steps import demand, run_options
from app.steps.currency import given_usd
from app.steps.offer_search import matching_offers, offer_for_desktop
from app.steps.trail import sig8

# Seed 004's metric in words a budget officer does not misread.
PER_ITEM_MEANING = (
    "USD per batch item per hour: the hour's price / the largest batch that fits in memory "
    "(seed 004's metric); not the cost of processing one item"
)

if TYPE_CHECKING:
    from app.models import Gpu
    from app.models.break_even import BreakEvenResult
    from app.models.carbon import CarbonRequest, CarbonResult

# Words that ask for a per-item cost the metric is not ("cost per image").
PER_THING = re.compile(r"per\s+(?:image|img|sample|example|picture|photo|item)s?\b")

# A carbon question about training for a period ("training on 8 A100s for 3 days").
TRAINING = re.compile(r"\btrain(?:ing|s|ed)?\b")


def _break_even_body(view: CatalogView, out: Answer) -> dict[str, Any]:
    """The `/v1/break-even` body of a break-even question: the desktop (the named or default
    GPU at its count; a given price; a resale), the cloud (a given price, else the offer the
    question names or the default one, said so), and the place."""
    it = out.it
    prices = _purchase_fields(view, out)
    gpu = one_gpu(view, out, it.gpu, bought=not prices)
    count = it.gpu.count if it.gpu else 1
    usage = usage_fields(it)
    if it.gpu_hours_per_month is not None and not usage:
        count, utilization = out.take(demand.gpus_for_monthly_hours(it.gpu_hours_per_month))
        usage = {"utilization": utilization}
    desktop = desktop_spec(out, gpu, count)
    if "total_price_usd" in prices or "total_price" in prices:
        desktop = {"gpu": gpu.id, "gpu_count": count}
    desktop |= prices
    if it.resell_after_years is not None:
        desktop["resell_after_years"] = it.resell_after_years
    cloud: dict[str, Any]
    if it.cloud.price_usd_per_hour is not None:
        cloud = {"price_usd_per_hour": it.cloud.price_usd_per_hour}
        if it.cloud.gpu is not None:  # "vs renting an H100 at $2.49/h": a family's variant
            cloud["gpu"] = one_gpu(view, out, it.cloud.gpu).id
    else:
        offer = out.take(offer_for_desktop(view, it.cloud, gpu, count))
        if offer is None:
            raise refuse(
                it,
                "no cloud offer in the catalog matches "
                + (cloud_text(it) if cloud_words(it) else gpu.id)
                + "; name one (`vs lambda h100`) or a price (`vs $2.14/h`)",
            )
        cloud = {"offer_id": offer.id}
        if it.cloud.instance_type is not None:  # "4x 4090 vs aws p4d.24xlarge"
            out.caveat(
                f"vs {offer.provider} {offer.instance_type}: {offer.gpu_count}x {offer.gpu_id} "
                f"against {count}x {gpu.id}, hours scaled by the speed model"
            )
        if it.cloud.provider is None and any(UNLISTED in d for d in it.declined):
            out.caveat(f"compared with {offer.provider} {offer.instance_type} instead")
    return {"desktop": desktop, "cloud": cloud, **where_fields(it), **usage}


def break_even_answer(view: CatalogView, settings: Settings, out: Answer) -> QueryAnswer:
    """A break-even question: the engine's answer, its headline (days, or never and why)
    and the facts a reader checks it by."""
    it = out.it
    body = _break_even_body(view, out)
    from app.models.break_even import BreakEvenRequest

    req = validated(BreakEvenRequest, body, it)
    res = usecases.compute_break_even(view, req, settings)
    resale = res.resale
    if res.break_even_days is not None:
        headline = f"Break-even: {res.break_even_days:,.0f} days"
        if resale is not None and resale.resell_after_years is not None:
            headline += f" if you resell after {resale.resell_after_years:g} years"
    else:
        headline = f"Break-even: never ({res.break_even_reason})"
    headline += f", {_basis(res, body)}"
    for label, value in break_even_facts(res, out.it.horizon_days):
        out.fact(label, value)
    return out.done(headline, "/v1/break-even", req.model_dump(exclude_none=True), dump(res))


def _basis(res: BreakEvenResult, body: dict[str, Any]) -> str:
    """What a break-even rests on, in a few words: the box and its price (said to be the
    question's own when typed), the rental's price per hour and the utilization."""
    d, c, r, desk = res.desktop, res.cloud, res.currency_rate, body["desktop"]
    used = " used" if desk.get("condition") == "used" else ""
    box = f"{d.gpu_count}x{used} {d.gpu_id}"
    upfront = in_currency_text(d.upfront_usd, r)
    if "total_price_usd" in desk or "total_price" in desk:
        own = f"a {upfront} box (your price) with {box}"
    elif "gpu_price_usd" in desk:
        each = in_currency_text(desk["gpu_price_usd"], r)
        own = f"{box} at {each} each (your price), {upfront} with its barebone"
    else:
        own = f"{box}, {upfront} with its barebone"
    rent = f"{in_currency_text(c.price_usd_per_hour, r)}/h" + (
        f" on {c.provider}" if c.provider else " (your price)"
    )
    return f"{own}, vs {rent}, at {res.utilization:.0%} utilization"


def break_even_facts(
    res: BreakEvenResult, horizon_days: float | None = None
) -> list[tuple[str, str]]:
    """The facts under a break-even headline, (label, text) in the answer's currency: both
    sides, utilization, speed, electricity, running costs, resale and TCO, the exchange rate,
    memory and, when asked, the totals over ``horizon_days``."""
    facts: list[tuple[str, str]] = []
    resale = res.resale
    d, c, r = res.desktop, res.cloud, res.currency_rate
    facts.append(
        ("Desktop", f"{d.gpu_count}x {d.gpu_id}, {in_currency_text(d.upfront_usd, r)} upfront")
    )
    price = f"{in_currency_text(c.price_usd_per_hour, r)}/h"
    cloud = (
        f"{c.offer_id} ({c.provider or '-'}, {c.pricing_model or '-'}) at {price}"
        if c.offer_id
        else f"the price given, {price}"
    )
    facts.append(("Cloud", cloud))
    facts.append(("Utilization", f"{res.utilization:.0%}"))
    if res.performance is not None and res.performance.time_factor != 1:
        p = res.performance
        what = p.detail.removeprefix(p.basis + ": ").split(" from ")[0].split(" (")[0]
        facts.append(
            (
                "Speed",
                f"{p.time_factor:.2f} cloud hours per desktop hour ({p.basis}: {what}; "
                "the basis in full: result.performance)",
            )
        )
    facts.append(("Electricity", f"{in_currency_text(d.electricity_price_usd_per_kwh, r)}/kWh"))
    facts.append(
        (
            "Running cost",
            f"desktop {in_currency_text(d.cost_usd_per_year, r)}/yr ({d.energy_kwh_per_year:,.0f} kWh), "
            f"cloud {in_currency_text(c.cost_usd_per_year, r)}/yr",
        )
    )
    if resale is not None:
        facts.append(
            (
                "Resale",
                f"{in_currency_text(resale.resale_value_usd, r)} on {resale.resale_on} ({resale.basis}); "
                f"without resale {resale.break_even_days_without_resale} days",
            )
        )
        facts.append(
            (
                f"TCO over {res.tco.horizon_years:g} years",
                f"desktop {in_currency_text(res.tco.desktop_tco_usd, r)} vs cloud {in_currency_text(res.tco.cloud_tco_usd, r)}"
                f": {res.tco.cheaper} is cheaper",
            )
        )
    if r.currency != "USD":
        facts.append(("Exchange rate", f"{r.usd_per_unit:g} USD/{r.currency} ({r.as_of})"))
    if res.memory is not None and res.memory.gpus_below:
        facts.append(
            (
                "Memory",
                f"{', '.join(res.memory.gpus_below)} below the {res.memory.required_gb:g} GB "
                f"'{res.memory.preset}' needs at {res.memory.precision}",
            )
        )
    if horizon_days:
        desk_total = costing.cumulative_cost_usd(d.upfront_usd, d.cost_usd_per_day, horizon_days)
        cloud_total = costing.cumulative_cost_usd(0.0, c.cost_usd_per_day, horizon_days)
        cheaper = "desktop" if desk_total < cloud_total else "cloud"
        facts.append(
            (
                f"Over {horizon_days:,.0f} days",
                f"desktop {in_currency_text(desk_total, r)} vs cloud {in_currency_text(cloud_total, r)}: {cheaper} is cheaper",
            )
        )
    return facts


def _purchase_fields(view: CatalogView, out: Answer) -> dict[str, Any]:
    """The desktop's purchase as typed: its total (USD or the answer's currency), one GPU's
    price (a price in the answer's currency converted to USD by the currency step, at the
    catalog's dated rate, and said so) and the GPUs' condition."""
    it = out.it
    gpu_usd = it.gpu_price_usd
    if gpu_usd is None and it.gpu_price is not None and it.currency:
        rate = view.fx_rate(it.currency)
        converted = out.take(given_usd(None, it.gpu_price, rate, "desktop.gpu_price_usd"))
        gpu_usd = sig8(converted)
    fields = {
        "total_price_usd": it.desktop_price_usd,
        "total_price": it.desktop_price,
        "gpu_price_usd": gpu_usd,
        "condition": it.condition,
    }
    return {k: v for k, v in fields.items() if v is not None}


def run_cost_answer(view: CatalogView, settings: Settings, out: Answer) -> QueryAnswer:
    """A run-cost (or cost-per-batch-item) question: the workload, the options (defaults
    stated), then the engine's cheapest options."""
    it = out.it
    timed = it.runtime_s or it.gpu_hours or it.horizon_days
    mention = it.gpu or (it.cloud.gpu if timed else None)
    # "NC24ads_A100_v4 for 100 hours", "renting a 4090 for $0.59/h 8 hours a day, monthly"
    gpu = one_gpu(view, out, mention) if mention else None
    count = mention.count if mention else 1
    workload, what = _workload(out, gpu, count)
    body = {"workload": workload, "options": _options(view, out, gpu, count), **where_fields(it)}
    from app.models.run_cost import RunCostRequest

    req = validated(RunCostRequest, body, it)
    res = usecases.compute_run_cost(view, req, settings)
    per_item = it.intent == "cost_per_item"
    metric = "cost_per_batch_item_usd" if per_item else "cost_usd"
    ranked = sorted(
        (o for o in res.options if getattr(o, metric) is not None and o.fits is not False),
        key=lambda o: getattr(o, metric),
    )
    if not ranked:
        headline = f"No option can run {what}" + (
            " (out of memory or no max batch size known)" if per_item else ""
        )
    else:
        best, rate = ranked[0], res.currency_rate
        label = "Cost per batch item per hour" if per_item else "Run cost"
        headline = f"{label}: {in_currency_text(getattr(best, metric), rate)} on {best.label}"
        if best.oldest_price_date is not None:
            out.rests_on(best.oldest_price_date, best.oldest_price or "a catalog price", view.day)
    if per_item:
        out.fact("Metric", PER_ITEM_MEANING)
        if said := PER_THING.search(it.text.lower()):
            out.caveat(
                f"'{said.group(0)}' read as cost per batch item per hour: the hourly price "
                "over the largest batch that fits, not the cost of one item"
            )
    out.fact("Workload", what)
    for o in ranked[:MAX_OPTIONS]:
        extra = f", {o.runtime_s / 3600:.2f} h" if o.runtime_s else ""
        out.fact(o.label, f"{in_currency_text(getattr(o, metric), res.currency_rate)}{extra}")
    skipped = [o.label for o in res.options if o.fits is False]
    if skipped:
        out.fact("Out of memory", ", ".join(skipped))
    return out.done(headline, "/v1/run-cost", req.model_dump(exclude_none=True), dump(res))


def _workload(out: Answer, gpu: Gpu | None, count: int) -> tuple[dict[str, Any], str]:
    """The run-cost workload (a benchmark, or a runtime on the named GPU) and how the answer
    names it; refuses a question without either. A period without a runtime ("8 H100s for a
    week", "a year of A10G at 25 %") is the GPUs' busy time over it: the whole period unless
    a utilization is given (stated as a default)."""
    it = out.it
    if it.benchmark:
        return {"benchmark": it.benchmark}, it.benchmark
    runtime_s = it.runtime_s
    if runtime_s is None and it.gpu_hours is not None:
        runtime_s = it.gpu_hours * 3600 / count
    if runtime_s is None and it.horizon_days and gpu is not None:
        runtime_s = out.take(demand.busy_runtime_s(it.horizon_days, it.utilization))
    if runtime_s is None or gpu is None:
        raise refuse(
            it,
            "How long does one run take, and on which GPU? e.g. `10 hours on an a100`, or "
            "a benchmark: stylegan, yolor, efficientnet",
        )
    workload = {"runtime_s": runtime_s, "gpu": gpu.id, "gpu_count": count}
    return workload, f"{runtime_s / 3600:g} h on {count}x {gpu.id}"


# "$4.98/h total", "$4.98/h for both": a typed price is the whole instance's, not each GPU's.
INSTANCE_PRICE = re.compile(
    r"/\s*h\w*\s+(?:in\s+)?(?:total|for\s+(?:both|all(?:\s+\w+)?|the\s+(?:instance|node)))\b"
)


def _options(view: CatalogView, out: Answer, gpu: Gpu | None, count: int) -> list[dict[str, Any]]:
    """The options to cost: the question's cloud side (a price, or matching offers); else
    for a GPU its cheapest offer per provider and a desktop; else seed 004's Paperspace
    offers (:mod:`app.steps.run_options`, each choice stated in the answer)."""
    it, c = out.it, out.it.cloud
    if c.price_usd_per_hour is not None:
        target = c.gpu.ids[0] if c.gpu and len(c.gpu.ids) == 1 else (gpu.id if gpu else None)
        if target is None:
            raise refuse(it, "Which GPU does the $/h price buy? e.g. `vs $2.14/h v100`")
        if count <= 1:
            return [{"price_usd_per_hour": c.price_usd_per_hour, "gpu": target}]
        if INSTANCE_PRICE.search(it.text.lower()):
            price = c.price_usd_per_hour
            how = f"${price:g}/h read as the price of all {count} GPUs (said: total)"
        else:
            price = c.price_usd_per_hour * count
            how = (
                f"${c.price_usd_per_hour:g}/h read as each GPU's price (GPU clouds quote per "
                f"GPU-hour): {count} x ${c.price_usd_per_hour:g} = ${price:g}/h; say "
                "`$X/h total` for the whole instance"
            )
        out.read_as("options[0].price_usd_per_hour", price, how)
        return [{"price_usd_per_hour": price, "gpu": target, "gpu_count": count}]
    if not c.is_empty():
        ids = c.gpu.ids if c.gpu else ((gpu.id,) if gpu else None)
        found = out.take(matching_offers(view, c, ids, pricing="on_demand"))
        if not found:
            raise refuse(it, f"no cloud offer matches {cloud_text(it)}")
        return out.take(run_options.distinct_offers(found))
    if gpu is not None:
        return out.take(run_options.gpu_options(view, gpu, count))
    return out.take(run_options.seed_options(view))


# "embodied carbon", "manufacturing emissions", "carbon to make": the hardware's own footprint.
EMBODIED = re.compile(r"\bembodied\b|\bmanufactur\w*|\b(?:carbon|co2e?)\s+to\s+(?:make|build)\b")


def carbon_answer(view: CatalogView, settings: Settings, out: Answer) -> QueryAnswer:
    it = out.it
    mention = it.gpu or it.cloud.gpu
    gpu = one_gpu(view, out, mention)
    count = mention.count if mention else 1
    body: dict[str, Any] = {"gpu": gpu.id, "gpu_count": count}
    if it.gpu_hours is not None:
        body["hours"] = it.gpu_hours / count
    elif it.runtime_s is not None:
        body["hours"] = it.runtime_s / 3600
    else:
        body["days"] = out.take(demand.carbon_days(it.horizon_days))
        usage = usage_fields(it)
        body.update(usage)
        if it.horizon_days and not usage and TRAINING.search(it.text.lower()):
            body["utilization"] = out.take(demand.busy_throughout())
    if it.region:
        body["region"] = it.region
    if it.cloud.provider or RENTING.search(it.text.lower()):
        body["hardware"] = "rented"
        out.read_as(
            "hardware",
            "rented",
            f"'{it.cloud.provider or 'rent'}' read as rented GPUs: they carry the usage share of "
            "their and their host's manufacturing emissions (say `owned` for a bought desktop)",
        )
    from app.models.carbon import CarbonRequest

    req = validated(CarbonRequest, body, it)
    res = usecases.compute_carbon(view, req, settings)
    for label, value in carbon_facts(req, res):
        out.fact(label, value)
    # The grid is in the headline whenever it is not one the question named (issue 31: never
    # fall back to the world average silently).
    grid = (
        f" on the {view.region(it.region).name} grid"
        if it.region
        else f" on the {res.carbon_intensity_g_per_kwh:,.0f} gCO2e/kWh default grid "
        f"({settings.default_region}: no region recognised in the question)"
    )
    headline = (
        f"Carbon: {res.co2e_kg:,.1f} kg CO2e ({res.energy_kwh:,.0f} kWh){grid} + "
        f"{res.embodied.co2e_kg:,.1f} kg embodied"
    )
    if EMBODIED.search(it.text.lower()):  # "embodied carbon of an h100": the hardware's own
        whole = res.hardware_embodied
        period = f"{req.days:g} days" if req.days else f"{req.hours:g} busy hours"
        headline = (
            f"Embodied carbon of {count}x {gpu.id} ({res.hardware.value}): {whole.co2e_kg:,.0f} "
            f"kg CO2e to manufacture ({whole.low_co2e_kg:,.0f}-{whole.high_co2e_kg:,.0f}); "
            f"the {period} counted carry {res.embodied_share:.{0 if res.embodied_share >= 0.01 else 2}%} of it, "
            f"{res.embodied.co2e_kg:,.1f} kg, beside {res.co2e_kg:,.1f} kg CO2e of "
            f"electricity{grid}"
        )
    return out.done(headline, "/v1/carbon", req.model_dump(exclude_none=True), dump(res))


def carbon_facts(req: CarbonRequest, res: CarbonResult) -> list[tuple[str, str]]:
    """The facts under a carbon headline, (label, text): the GPUs and their power, busy
    hours, the grid, the energy with its PUE and the embodied share."""
    e = res.embodied
    return [
        (
            "GPUs",
            f"{res.gpu_count}x {res.gpu_id}, {res.power_w:,.0f} W busy incl. "
            f"{req.base_power_w:g} W host",
        ),
        ("Busy hours", f"{res.busy_hours:,.0f} h"),
        ("Grid", f"{res.carbon_intensity_g_per_kwh:,.0f} gCO2e/kWh ({req.region or 'world'})"),
        ("Energy", f"{res.energy_kwh:,.1f} kWh (PUE {res.pue:g})"),
        (
            "Embodied",
            f"{e.co2e_kg:,.1f} kg CO2e ({e.low_co2e_kg:,.1f}-{e.high_co2e_kg:,.1f}), "
            f"{res.embodied_share:.1%} of the hardware's manufacturing emissions",
        ),
    ]


def electricity_answer(view: CatalogView, settings: Settings, out: Answer) -> QueryAnswer:
    """The electricity bill of a desktop with the named GPUs (``POST /v1/electricity``): per
    month and year, and over the period asked for."""
    it = out.it
    mention = it.gpu or it.cloud.gpu
    gpu = one_gpu(view, out, mention)
    count = mention.count if mention else 1
    body: dict[str, Any] = {"desktop": {"gpu": gpu.id, "gpu_count": count}, **place_fields(it)}
    if it.horizon_days:
        body["days"] = it.horizon_days
    from app.models.electricity import ElectricityRequest

    req = validated(ElectricityRequest, body, it)
    res = usecases.compute_electricity(view, req, settings)
    rate = res.currency_rate
    out.fact(
        "Desktop",
        f"{count}x {gpu.id}: {res.busy_power_w:,.0f} W busy at the wall"
        + (
            f", {res.idle_wall_power_w:,.0f} W idle" if res.idle_wall_power_w else ", off when idle"
        ),
    )
    out.fact("Utilization", f"{res.utilization:.0%}")
    out.fact(
        "Electricity",
        f"{in_currency_text(res.electricity_price_usd_per_kwh, rate)}/kWh"
        + (f" ({it.region})" if it.region else ""),
    )
    out.fact(
        "Per year",
        f"{in_currency_text(res.cost_usd_per_year, rate)} ({res.energy_kwh_per_year:,.0f} kWh)",
    )
    if res.days:
        out.fact(
            f"Over {res.days:g} days",
            f"{in_currency_text(res.cost_usd, rate)} ({res.energy_kwh:,.1f} kWh)",
        )
    if res.days and res.cost_usd is not None and res.energy_kwh is not None:  # the period asked
        typed = period_text(res.days)  # "1 year" -> "a year", "2 years" -> "over 2 years"
        over = f"a {typed[2:]}" if typed.startswith("1 ") else f"over {typed}"
        cost, kwh = res.cost_usd, res.energy_kwh
    else:
        over, cost, kwh = "a month", res.cost_usd_per_month, res.energy_kwh_per_month
    headline = (
        f"Electricity: {in_currency_text(cost, rate)} {over} ({kwh:,.0f} kWh) for {count}x "
        f"{gpu.id} at {res.utilization:.0%}"
    )
    return out.done(headline, "/v1/electricity", req.model_dump(exclude_none=True), dump(res))
