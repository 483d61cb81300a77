"""Answer a plain-language question: parse it (:mod:`app.query.parser`), fill the missing
parts with documented defaults, call the cost engine, and phrase the answer.

Defaults for parts a question leaves out (each is reported in ``defaults``):

* **Desktop barebone** for 1-2 GPUs: seed 001's 2-GPU barebone (``barebone-2gpu-dettmers-2020``,
  $701), so ``break-even for 3090`` is the seed's $2,200 desktop. For more GPUs: the smallest
  catalog barebone that holds them (the engine's rule).
* **Cloud side of a break-even**: for the RTX 3090, seed 001's own comparison, the AWS V100 spot
  instance at $2.14/h ("similar performance to the RTX 3090"); for any other GPU, the cheapest
  on-demand offer of the same GPU and GPU count (Colab excluded: its usage limits make it no
  like-for-like substitute); failing that, the cheapest on-demand offer of a GPU with similar
  memory bandwidth (within 25 %, the engine's own speed estimate) and at least the same memory.
* **A provider or pricing model without a GPU** (``vs aws spot``): the cheapest matching offer
  of the same GPU, else of a similar GPU as above.
* **Run-cost options**: the cloud side if given; else for a GPU the cheapest offer per provider
  (up to 5) plus a desktop with that GPU when its price is known; for a benchmark without a GPU,
  seed 004's Paperspace offers (the post's table).
* **Carbon duration**: one year (365 days) when none is given.
* Utilization, electricity price and carbon intensity: the engine's defaults (seed 001's 15 %,
  $0.12/kWh, world average), stated in the result's ``assumptions``.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from app import costing, usecases
from app.catalog.view import CatalogView
from app.costing import CostingError
from app.errors import DomainError, NotUnderstood
from app.models import CloudOffer, Gpu
from app.models.answers import Assumption, CurrencyRate
from app.models.break_even import BreakEvenRequest
from app.models.carbon import CarbonRequest
from app.models.gpu import GpuPublic
from app.models.query import Fact, QueryAnswer
from app.models.run_cost import RunCostRequest
from app.query.interpretation import GpuMention, Interpretation
from app.query.lexicon import Lexicon
from app.query.parser import parse
from app.services import catalog
from app.settings import Settings
from app.usecases import trail

SEED_001 = trail.SEED_001
SEED_BAREBONE = "barebone-2gpu-dettmers-2020"
# seed 001: "AWS V100 spot instance at $2.14/h (similar performance to the RTX 3090)"
SEED_COMPARABLE = {"rtx-3090": "aws-p3.2xlarge-spot-seed-2020"}
# gpucost's rule, not a published figure: memory bandwidth within +-25 % (the engine's speed
# estimate, costing.speed_ratio_from_bandwidth) counts as similar performance.
SIMILAR_BANDWIDTH = 0.25
CARBON_DEFAULT_DAYS = 365.0
MAX_OPTIONS = 5
EXAMPLES = [
    "break-even for 3090 at 15% util",
    "two 4090s vs lambda h100 at $0.30/kWh for 2 years",
    "4x a6000 vs aws spot v100 in germany, slurm cluster",
    "cost per batch item for stylegan",
    "10 hours on an a100 vs colab pro",
    "carbon of 100 gpu-hours on h100 sxm in CA",
    "cheapest h100 spot",
    "3090 specs",
]


def lexicon(view: CatalogView) -> Lexicon:
    """The parser's vocabulary, built once per catalog view."""
    return view.memoized(
        "query.lexicon",
        lambda: Lexicon.build(**catalog.vocabulary(view), currencies=view.fx_rates),
    )


class _Answer:
    """Accumulates what the answer needs while a builder runs."""

    def __init__(self, it: Interpretation) -> None:
        self.it = it
        self.defaults: list[Assumption] = []
        self.facts: list[Fact] = []

    def default(self, name: str, value: Any, source: str) -> None:
        self.defaults.append(Assumption(name=name, value=value, source=source))

    def fact(self, label: str, value: str) -> None:
        self.facts.append(Fact(label=label, value=value))

    def done(
        self,
        headline: str,
        endpoint: str | None = None,
        request: dict[str, Any] | None = None,
        result: Any = None,
        *,
        answered: bool = True,
        suggestions: list[str] | None = None,
        examples: list[str] | None = None,
    ) -> QueryAnswer:
        return QueryAnswer(
            query=self.it.text,
            answered=answered,
            intent=self.it.intent,
            headline=headline,
            facts=self.facts,
            interpretation=self.it,
            endpoint=endpoint,
            request=request,
            defaults=self.defaults,
            ignored=self.it.ignored,
            result=result,
            share=self.it.share and answered,
            suggestions=suggestions or [],
            examples=examples or [],
        )


def _answer(view: CatalogView, settings: Settings, it: Interpretation) -> QueryAnswer:
    """Answer a parsed question. Raises :class:`NotUnderstood` (422) with suggestions when it
    cannot be read, and the engine's errors (404 unknown name or catalog gap, 422 invalid
    input)."""
    if it.problems:
        raise _refuse(it, "; ".join(it.problems))
    if it.intent == "unknown":
        raise _refuse(it, "I could not tell what you are asking.")
    out = _Answer(it)
    if it.intent == "help":
        for example in EXAMPLES:
            out.fact("Try", example)
        return out.done("Ask about break-even, run cost, cost per batch item, carbon, offers, GPUs")
    return _BUILDERS[it.intent](view, settings, out)


def respond(view: CatalogView, settings: Settings, text: str) -> QueryAnswer:
    """Answer ``text`` (parsed once). A question that cannot be answered (not understood, an
    unknown or ambiguous name, a catalog gap, inputs the engine refuses) comes back as
    ``answered=False`` with the reason as ``headline``, ``suggestions`` and ``examples``; only
    unexpected errors raise."""
    it = parse(text, lexicon(view))
    try:
        return _answer(view, settings, it)
    except (DomainError, CostingError) as exc:
        if isinstance(exc, CostingError):
            detail, suggestions, examples = exc.message, [], EXAMPLES[:2]
        else:
            detail = exc.detail
            suggestions = exc.extra.get("suggestions") or exc.extra.get("candidates") or []
            examples = exc.extra.get("examples") or EXAMPLES[:2]
        return _Answer(it).done(
            detail, answered=False, suggestions=list(suggestions), examples=list(examples)
        )


def _refuse(it: Interpretation, detail: str, suggestions: list[str] | None = None) -> NotUnderstood:
    return NotUnderstood(
        detail,
        suggestions=suggestions if suggestions is not None else it.suggestions,
        ignored=it.ignored,
        examples=EXAMPLES[:4],
    )


def _validated(model, body: dict[str, Any], it: Interpretation):
    """The typed engine request, or a refusal that says which value is out of range."""
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise _refuse(it, f"{where}: {first['msg']}") from None


def _one_gpu(view: CatalogView, it: Interpretation, mention: GpuMention) -> Gpu:
    if len(mention.ids) > 1:
        raise _refuse(
            it,
            f"'{mention.text}' is several GPUs: {', '.join(mention.ids)}; say which",
            list(mention.ids),
        )
    return view.gpu(mention.ids[0])  # type: ignore[return-value]


def _usage_fields(it: Interpretation) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if it.utilization is not None:
        body["utilization"] = it.utilization
    if it.utilization_profile:
        body["utilization_profile"] = it.utilization_profile
    return body


def _where_fields(it: Interpretation) -> dict[str, Any]:
    body = _usage_fields(it)
    if it.electricity_price_usd_per_kwh is not None:
        body["electricity_price_usd_per_kwh"] = it.electricity_price_usd_per_kwh
    if it.region:
        body["region"] = it.region
    if it.currency:
        body["currency"] = it.currency
    if it.memory_preset:
        body["memory_preset"] = it.memory_preset
    if it.precision:
        body["precision"] = it.precision
    return body


def _in(amount_usd: float | None, rate: CurrencyRate) -> str:
    """``amount_usd`` as money in the answer's currency (USD prints as before)."""
    if amount_usd is None or rate.currency == "USD":
        return _money(amount_usd)
    x = amount_usd / rate.usd_per_unit
    return f"{x:,.2f} {rate.currency}" if abs(x) >= 1 else f"{x:.4g} {rate.currency}"


# ------------------------------------------------------------------------------------------
# Choosing offers
# ------------------------------------------------------------------------------------------


def _pick_cloud_offer(
    view: CatalogView, out: _Answer, desktop_gpu: Gpu, count: int
) -> CloudOffer | None:
    """The cloud offer a break-even compares against (see the module docstring)."""
    c = out.it.cloud
    typed = not c.is_empty()
    if not typed and desktop_gpu.id in SEED_COMPARABLE and count == 1:
        offer = view.offer_by_id.get(SEED_COMPARABLE[desktop_gpu.id])
        if offer is not None:
            out.default(
                "cloud.offer_id",
                offer.id,
                f"{SEED_001}: 'AWS V100 spot instance at $2.14/h (similar performance to the "
                "RTX 3090)'",
            )
            return offer
    # Typed words filter as given; with none, on-demand and no Colab (its usage limits make
    # it no like-for-like substitute for a desktop).
    filters = dict(
        provider=c.provider,
        pricing_model=c.pricing_model or (None if typed else "on_demand"),
        colab_plan=c.colab_plan,
    )
    what = ", ".join(f"{k}={v}" for k, v in filters.items() if v) or "any provider"
    if c.gpu is not None:
        tiers: list[tuple[str, tuple[str, ...] | None]] = [("the GPU asked for", c.gpu.ids)]
    else:
        tiers = [
            ("the desktop's GPU", (desktop_gpu.id,)),
            (
                f"a GPU with memory bandwidth within {SIMILAR_BANDWIDTH:.0%} of the desktop's and "
                "as much memory (the engine's speed estimate)",
                catalog.similar_gpu_ids(view, desktop_gpu, SIMILAR_BANDWIDTH),
            ),
        ]
        if typed:  # "vs colab pro": the plan's own GPUs when none is comparable
            tiers.append(("any GPU (none comparable to the desktop's is offered)", None))
    for why, ids in tiers:
        if ids is not None and not ids:
            continue
        for count_rule, n in (("same GPU count", count), ("any GPU count", None)):
            found = catalog.find_offers(
                view,
                gpu_ids=ids,
                gpu_count=n,
                exclude_provider=None if typed else "colab",
                **filters,
            )
            if found:
                offer = found[0]
                out.default(
                    "cloud.offer_id",
                    offer.id,
                    f"cheapest of {len(found)} offers ({what}; {why}; "
                    f"{count_rule}), per GPU-hour, as of {offer.as_of}",
                )
                return offer
    return None


# ------------------------------------------------------------------------------------------
# Builders, one per intent
# ------------------------------------------------------------------------------------------


def _money(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"${x:,.2f}" if abs(x) >= 1 else f"${x:.4g}"


def _desktop_spec(view: CatalogView, out: _Answer, gpu: Gpu, count: int) -> dict[str, Any]:
    """A desktop with ``count`` x ``gpu``: seed 001's barebone when it has the slots, else
    the engine picks the smallest catalog barebone that does."""
    desktop: dict[str, Any] = {"gpu": gpu.id, "gpu_count": count}
    seed = view.barebone_by_id.get(SEED_BAREBONE)
    if seed is not None and seed.gpu_slots >= count:
        desktop["barebone"] = seed.id
        out.default("desktop.barebone", seed.id, f"{seed.source}")
    return desktop


def _break_even(view: CatalogView, settings: Settings, out: _Answer) -> QueryAnswer:
    it = out.it
    gpu = _one_gpu(view, it, it.gpu)  # type: ignore[arg-type]  (checked by the parser)
    count = it.gpu.count  # type: ignore[union-attr]
    desktop = _desktop_spec(view, out, gpu, count)
    if it.resell_after_years is not None:
        desktop["resell_after_years"] = it.resell_after_years
    cloud: dict[str, Any]
    if it.cloud.price_usd_per_hour is not None:
        cloud = {"price_usd_per_hour": it.cloud.price_usd_per_hour}
        if it.cloud.gpu is not None and len(it.cloud.gpu.ids) == 1:
            cloud["gpu"] = it.cloud.gpu.ids[0]
    else:
        offer = _pick_cloud_offer(view, out, gpu, count)
        if offer is None:
            raise _refuse(
                it,
                "no cloud offer in the catalog matches "
                + (", ".join(f"{k}={v}" for k, v in _cloud_words(it).items()) or gpu.id)
                + "; name one (`vs lambda h100`) or a price (`vs $2.14/h`)",
            )
        cloud = {"offer_id": offer.id}
    body = {"desktop": desktop, "cloud": cloud, **_where_fields(it)}
    req = _validated(BreakEvenRequest, body, it)
    res = usecases.compute_break_even(view, req, settings)
    resale = res.resale
    if res.break_even_days is not None:
        headline = f"Break-even: {res.break_even_days:,.0f} days"
        if resale is not None and resale.resell_after_years is not None:
            headline += f" if you resell after {resale.resell_after_years:g} years"
    else:
        headline = f"Break-even: never ({res.break_even_reason})"
    d, c, r = res.desktop, res.cloud, res.currency_rate
    out.fact("Desktop", f"{d.gpu_count}x {d.gpu_id}, {_in(d.upfront_usd, r)} upfront")
    out.fact(
        "Cloud",
        f"{c.offer_id or 'given price'} ({c.provider or '-'}, "
        f"{c.pricing_model if c.pricing_model else '-'}) at "
        f"{_in(c.price_usd_per_hour, r)}/h",
    )
    out.fact("Utilization", f"{res.utilization:.0%}")
    out.fact("Electricity", f"{_in(d.electricity_price_usd_per_kwh, r)}/kWh")
    out.fact(
        "Running cost",
        f"desktop {_in(d.cost_usd_per_year, r)}/yr ({d.energy_kwh_per_year:,.0f} kWh), "
        f"cloud {_in(c.cost_usd_per_year, r)}/yr",
    )
    if resale is not None:
        out.fact(
            "Resale",
            f"{_in(resale.resale_value_usd, r)} on {resale.resale_on} ({resale.basis}); "
            f"without resale {resale.break_even_days_without_resale} days",
        )
        out.fact(
            f"TCO over {res.tco.horizon_years:g} years",
            f"desktop {_in(res.tco.desktop_tco_usd, r)} vs cloud {_in(res.tco.cloud_tco_usd, r)}"
            f": {res.tco.cheaper} is cheaper",
        )
    if r.currency != "USD":
        out.fact("Exchange rate", f"{r.usd_per_unit:g} USD/{r.currency} ({r.as_of})")
    if res.memory is not None and res.memory.gpus_below:
        out.fact(
            "Memory",
            f"{', '.join(res.memory.gpus_below)} below the {res.memory.required_gb:g} GB "
            f"'{res.memory.preset}' needs at {res.memory.precision}",
        )
    if it.horizon_days:
        desk_total = costing.cumulative_cost_usd(d.upfront_usd, d.cost_usd_per_day, it.horizon_days)
        cloud_total = costing.cumulative_cost_usd(0.0, c.cost_usd_per_day, it.horizon_days)
        cheaper = "desktop" if desk_total < cloud_total else "cloud"
        out.fact(
            f"Over {it.horizon_days:,.0f} days",
            f"desktop {_in(desk_total, r)} vs cloud {_in(cloud_total, r)}: {cheaper} is cheaper",
        )
    return out.done(headline, "/v1/break-even", req.model_dump(exclude_none=True), _dump(res))


def _cloud_words(it: Interpretation) -> dict[str, str]:
    c = it.cloud
    words = {"provider": c.provider, "pricing_model": c.pricing_model, "plan": c.colab_plan}
    if c.gpu:
        words["gpu"] = "/".join(c.gpu.ids)
    return {k: v for k, v in words.items() if v}


def _run_cost(view: CatalogView, settings: Settings, out: _Answer) -> QueryAnswer:
    it = out.it
    gpu = _one_gpu(view, it, it.gpu) if it.gpu else None
    count = it.gpu.count if it.gpu else 1
    workload: dict[str, Any]
    if it.benchmark:
        workload = {"benchmark": it.benchmark}
        what = it.benchmark
    else:
        runtime_s = it.runtime_s
        if runtime_s is None and it.gpu_hours is not None:
            runtime_s = it.gpu_hours * 3600 / count
        if runtime_s is None or gpu is None:
            raise _refuse(
                it,
                "How long does one run take, and on which GPU? e.g. `10 hours on an a100`, or "
                "a benchmark: stylegan, yolor, efficientnet",
            )
        workload = {"runtime_s": runtime_s, "gpu": gpu.id, "gpu_count": count}
        what = f"{runtime_s / 3600:g} h on {count}x {gpu.id}"
    options: list[dict[str, Any]] = []
    c = it.cloud
    if c.price_usd_per_hour is not None:
        target = c.gpu.ids[0] if c.gpu and len(c.gpu.ids) == 1 else (gpu.id if gpu else None)
        if target is None:
            raise _refuse(it, "Which GPU does the $/h price buy? e.g. `vs $2.14/h v100`")
        options.append({"price_usd_per_hour": c.price_usd_per_hour, "gpu": target})
    elif not c.is_empty():
        ids = c.gpu.ids if c.gpu else ((gpu.id,) if gpu else None)
        found = catalog.find_offers(
            view,
            gpu_ids=ids,
            provider=c.provider,
            pricing_model=c.pricing_model,
            colab_plan=c.colab_plan,
        )
        if not found:
            raise _refuse(it, f"no cloud offer matches {_cloud_words(it)}")
        options += [{"offer_id": o.id} for o in found[:MAX_OPTIONS]]
        out.default(
            "options",
            [o["offer_id"] for o in options],
            f"the {len(options)} cheapest per GPU-hour of {len(found)} matching offers",
        )
    elif gpu is not None:
        cheapest: dict[str, CloudOffer] = {}  # per provider; offers come cheapest first
        for offer in catalog.find_offers(view, gpu_ids=(gpu.id,), gpu_count=count):
            cheapest.setdefault(offer.provider, offer)
        options += [{"offer_id": o.id} for o in list(cheapest.values())[:MAX_OPTIONS]]
        if gpu.price_new_usd is not None:
            options.append({"desktop": _desktop_spec(view, out, gpu, count)})
        if not options:
            raise _refuse(it, f"no offer or desktop price for {gpu.id} in the catalog")
        out.default(
            "options",
            [o.get("offer_id", "desktop") for o in options],
            "the cheapest offer of this GPU per provider (up to 5), and a desktop with it "
            "when its launch price is known",
        )
    else:
        found = [
            o for o in catalog.find_offers(view, gpu_ids=None, provider="paperspace")
            if o.id.endswith("-2022")
        ]  # fmt: skip
        options += [{"offer_id": o.id} for o in found]
        out.default(
            "options",
            len(options),
            "seed 004's Paperspace offers (Paperspace, 'Best GPU for deep learning', 2022)",
        )
    body = {"workload": workload, "options": options, **_where_fields(it)}
    req = _validated(RunCostRequest, body, it)
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
    elif per_item:
        best = ranked[0]
        headline = f"Cost per batch item: {_in(best.cost_per_batch_item_usd, res.currency_rate)} on {best.label}"
    else:
        best = ranked[0]
        headline = f"Run cost: {_in(best.cost_usd, res.currency_rate)} on {best.label}"
    out.fact("Workload", what)
    for o in ranked[:MAX_OPTIONS]:
        value = getattr(o, metric)
        extra = f", {o.runtime_s / 3600:.2f} h" if o.runtime_s else ""
        out.fact(o.label, f"{_in(value, res.currency_rate)}{extra}")
    skipped = [o.label for o in res.options if o.fits is False]
    if skipped:
        out.fact("Out of memory", ", ".join(skipped))
    return out.done(headline, "/v1/run-cost", req.model_dump(exclude_none=True), _dump(res))


def _carbon(view: CatalogView, settings: Settings, out: _Answer) -> QueryAnswer:
    it = out.it
    mention = it.gpu or it.cloud.gpu
    gpu = _one_gpu(view, it, mention)  # type: ignore[arg-type]  (checked by the parser)
    count = mention.count  # type: ignore[union-attr]
    body: dict[str, Any] = {"gpu": gpu.id, "gpu_count": count}
    if it.gpu_hours is not None:
        body["hours"] = it.gpu_hours / count
    elif it.runtime_s is not None:
        body["hours"] = it.runtime_s / 3600
    else:
        body["days"] = it.horizon_days or CARBON_DEFAULT_DAYS
        if not it.horizon_days:
            out.default("days", CARBON_DEFAULT_DAYS, "default: one year")
        body.update(_usage_fields(it))
    if it.region:
        body["region"] = it.region
    req = _validated(CarbonRequest, body, it)
    res = usecases.compute_carbon(view, req, settings)
    out.fact(
        "GPUs", f"{count}x {gpu.id}, {res.power_w:,.0f} W busy incl. {req.base_power_w:g} W host"
    )
    out.fact("Busy hours", f"{res.busy_hours:,.0f} h")
    out.fact("Grid", f"{res.carbon_intensity_g_per_kwh:,.0f} gCO2e/kWh ({it.region or 'world'})")
    out.fact("Energy", f"{res.energy_kwh:,.1f} kWh (PUE {res.pue:g})")
    out.fact(
        "Embodied",
        f"{res.embodied.co2e_kg:,.1f} kg CO2e ({res.embodied.low_co2e_kg:,.1f}-"
        f"{res.embodied.high_co2e_kg:,.1f}), {res.embodied_share:.1%} of the hardware's "
        "manufacturing emissions",
    )
    headline = (
        f"Carbon: {res.co2e_kg:,.1f} kg CO2e ({res.energy_kwh:,.0f} kWh) + "
        f"{res.embodied.co2e_kg:,.1f} kg embodied"
    )
    return out.done(headline, "/v1/carbon", req.model_dump(exclude_none=True), _dump(res))


def _offers_answer(view: CatalogView, settings: Settings, out: _Answer) -> QueryAnswer:
    it = out.it
    c = it.cloud
    mention = c.gpu or it.gpu
    found = catalog.find_offers(
        view,
        gpu_ids=mention.ids if mention else None,
        provider=c.provider,
        pricing_model=c.pricing_model,
        colab_plan=c.colab_plan,
        gpu_count=mention.count if mention and mention.count > 1 else None,
    )
    if c.price_usd_per_hour is not None:
        found = [o for o in found if float(o.price_usd_per_hour) <= c.price_usd_per_hour]
    if not found:
        raise _refuse(it, f"no cloud offer matches {_cloud_words(it) or 'that'}")
    best = found[0]
    name = mention.text.upper() if mention else "GPU"
    headline = (
        f"Cheapest {name}: {_money(catalog.price_per_gpu_hour(best))} per GPU-hour on {best.provider} "
        f"{best.instance_type} ({best.pricing_model}, {best.gpu_count}x {best.gpu_id})"
    )
    for o in found[:MAX_OPTIONS]:
        out.fact(
            f"{o.provider} {o.instance_type}",
            f"{_money(catalog.price_per_gpu_hour(o))}/GPU-h ({_money(float(o.price_usd_per_hour))}/h for "
            f"{o.gpu_count}x {o.gpu_id}), {o.pricing_model}, {o.region or 'any region'}, "
            f"as of {o.as_of}",
        )
    out.fact("Matching offers", str(len(found)))
    rows = [
        {
            "id": o.id,
            "provider": o.provider,
            "price_usd_per_hour": float(o.price_usd_per_hour),
            "pricing_model": o.pricing_model,
            "gpu_id": o.gpu_id,
            "gpu_count": o.gpu_count,
            "region": o.region,
            "as_of": o.as_of.isoformat(),
            "source": o.source,
        }
        for o in found[:MAX_OPTIONS]
    ]
    return out.done(headline, result=rows)


def _gpu_info(view: CatalogView, settings: Settings, out: _Answer) -> QueryAnswer:
    mention = out.it.gpu or out.it.cloud.gpu
    gpus = [view.gpu(i) for i in mention.ids]  # type: ignore[union-attr]
    for g in gpus:
        bw = f", {g.memory_bandwidth_gb_per_s:,.0f} GB/s" if g.memory_bandwidth_gb_per_s else ""
        price = f", launch price {_money(g.price_new_usd)}" if g.price_new_usd else ""
        out.fact(g.name, f"{g.memory_gb:g} GB{bw}, {g.tdp_w:,.0f} W TDP{price} (`{g.id}`)")
    if len(gpus) == 1:
        headline = f"{gpus[0].name}: " + out.facts[0].value
    else:
        headline = f"'{mention.text}' is {len(gpus)} GPUs: " + ", ".join(g.id for g in gpus)  # type: ignore[union-attr]
    result = [
        GpuPublic.model_validate(g, from_attributes=True).model_dump(mode="json") for g in gpus
    ]
    return out.done(headline, result=result)


def _dump(result) -> dict[str, Any]:
    return result.model_dump(mode="json")


_BUILDERS = {
    "break_even": _break_even,
    "run_cost": _run_cost,
    "cost_per_item": _run_cost,
    "carbon": _carbon,
    "offers": _offers_answer,
    "gpu_info": _gpu_info,
}
