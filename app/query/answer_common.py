"""What every chat answer builder shares: the answer being built, refusals, request fields
from an interpretation, money formatting, and the defaults for a desktop and a cloud side
(see :mod:`app.query.answer` for the defaults' sources)."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from app.catalog.view import CatalogView
from app.costing import defaults
from app.costing.sourced import Assumed, Caveat, Sourced
from app.errors import NotUnderstood
from app.models import Gpu
from app.models.answers import Assumption, CurrencyRate
from app.models.interpretation import GpuMention, Interpretation
from app.models.query import Fact, QueryAnswer
from app.steps import trail

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

SEED_001 = trail.SEED_001


CARBON_DEFAULT_DAYS = defaults.CARBON_DAYS.number


MAX_OPTIONS = 5

# The GPUs of an HGX baseboard, the only way SXM modules are sold (the catalog's server host
# for them holds 8: barebones.csv `server-8gpu-2025`).
HGX_GPUS = 8


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


class Answer:
    """Accumulates what the answer needs while a builder runs."""

    def __init__(self, it: Interpretation) -> None:
        self.it = it
        self.defaults: list[Assumption] = []
        self.facts: list[Fact] = []
        self.caveats: list[str] = []

    def caveat(self, text: str) -> None:
        """Something the answer did differently from what was asked (a GPU the provider
        does not offer, a pricing model dropped): said in the headline."""
        if text not in self.caveats:
            self.caveats.append(text)

    def default(self, name: str, value: Any, source: str) -> None:
        self.defaults.append(Assumption(name=name, value=value, source=source))

    def take(self, found: Sourced[T]) -> T:
        """A step's value, its notes kept: each default it chose as one of the answer's
        defaults, each caveat for the headline (citations and prices are the use cases')."""
        for note in found.notes:
            if isinstance(note, Assumed):
                self.default(note.name, note.value, note.source)
            elif isinstance(note, Caveat):
                self.caveat(note.text)
        return found.value

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
        if answered:
            headline += dated_note(result)
        notes = [*self.it.corrected, *self.it.declined, *self.caveats]
        if notes:
            headline = f"{headline} ({'; '.join(notes)})"
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


def dated_note(result: Any) -> str:
    """The staleness policy's words for a headline: when the answer rests on a catalog price
    older than :data:`defaults.PRICE_FRESH_DAYS`, its date and age (the warnings list has the rest)."""
    prices = result.get("prices") if isinstance(result, dict) else getattr(result, "prices", None)
    if isinstance(prices, BaseModel):
        prices = prices.model_dump()
    if not isinstance(prices, dict):
        return ""
    day, age = prices.get("oldest_price_date"), prices.get("oldest_price_age_days")
    if day is None or age is None or age <= defaults.PRICE_FRESH_DAYS:
        return ""
    what = prices.get("oldest_price") or "a catalog price"
    return f" (rests on a price from {day}, {age / 365.25:.1f} years old: {what})"


def refuse(it: Interpretation, detail: str, suggestions: list[str] | None = None) -> NotUnderstood:
    return NotUnderstood(
        detail,
        suggestions=suggestions if suggestions is not None else it.suggestions,
        ignored=it.ignored,
        examples=EXAMPLES[:4],
    )


def validated(model: type[M], body: dict[str, Any], it: Interpretation) -> M:
    """The typed engine request, or a refusal that says which value is out of range."""
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise refuse(it, f"{where}: {first['msg']}") from None


def offer_counts(view: CatalogView) -> dict[tuple[str, str | None], int]:
    """Offers per ``(gpu id, provider)`` and per ``(gpu id, None)`` (every provider); built
    once per view."""

    def count() -> dict[tuple[str, str | None], int]:
        out: dict[tuple[str, str | None], int] = {}
        for o in view.offers.offers:
            for key in ((o.gpu_id, o.provider), (o.gpu_id, None)):
                out[key] = out.get(key, 0) + 1
        return out

    return view.memoized("query.offer_counts", count)


def one_gpu(
    view: CatalogView, out: Answer, mention: GpuMention | None, *, bought: bool = False
) -> Gpu:
    """The GPU a mention names; a family name ("h100", "a100") takes the variant with the
    most catalog offers (at the provider asked about, if any), among those with a catalog
    purchase price when one is to be ``bought`` (and some have one), stated in the answer's
    defaults with the alternatives: never a refusal where a sensible default answers.
    Refuses (NotUnderstood) when no GPU is named (the parser names one for the intents that
    need it)."""
    if mention is None or not mention.ids:
        raise refuse(out.it, "name a GPU, e.g. '3090' or 'a100'")
    if len(mention.ids) == 1:
        return _catalog_gpu(view, mention.ids[0])
    provider = out.it.cloud.provider
    per_key = offer_counts(view)
    counts = {gid: per_key.get((gid, provider), 0) for gid in mention.ids}
    pool = list(mention.ids)
    priced = [g for g in pool if (found := view.gpu(g)) and found.purchase_price() is not None]
    why = ""
    if bought and priced:
        pool, why = priced, " of those with a purchase price"
        cards = [g for g in priced if "sxm" not in str(_catalog_gpu(view, g).form_factor)]
        if cards and mention.count != HGX_GPUS:
            pool, why = (
                cards,
                f"{why} sold as cards (SXM modules come on {HGX_GPUS}-GPU HGX boards)",
            )
        if len(pool) == len(mention.ids):
            why = ""
    chosen = max(sorted(pool), key=lambda gid: counts[gid])
    where = f" at {provider}" if provider else ""
    others = ", ".join(g for g in mention.ids if g != chosen)
    out.default(
        f"gpu '{mention.text}'",
        chosen,
        f"default: '{mention.text}' is {len(mention.ids)} GPUs; {chosen} has the most catalog "
        f"offers{where}{why} ({counts[chosen]}); also {others}: name one to choose",
    )
    return _catalog_gpu(view, chosen)


def _catalog_gpu(view: CatalogView, gpu_id: str) -> Gpu:
    """A GPU the lexicon found in this view (so it is there)."""
    gpu = view.gpu(gpu_id)
    if gpu is None:  # the lexicon is built from the same view
        raise NotUnderstood(f"no GPU {gpu_id} in the catalog")
    return gpu


def _typed(it: Interpretation, *names: str) -> dict[str, Any]:
    """The request fields ``names`` the question gave (a value that is neither None nor
    empty), as the parser read them."""
    return {n: v for n in names if (v := getattr(it, n)) is not None and v != ""}


def usage_fields(it: Interpretation) -> dict[str, Any]:
    """Utilization or its profile, as typed."""
    return _typed(it, "utilization", "utilization_profile")


def place_fields(it: Interpretation) -> dict[str, Any]:
    """Usage, electricity price, region and currency as typed (:class:`UsageInputs`)."""
    return usage_fields(it) | _typed(
        it,
        "electricity_price_usd_per_kwh",
        "electricity_price_per_kwh",
        "region",
        "tariff",
        "currency",
    )


def where_fields(it: Interpretation) -> dict[str, Any]:
    """:func:`place_fields` and the workload's memory need (:class:`CommonInputs`)."""
    return place_fields(it) | _typed(it, "memory_preset", "precision")


def in_currency_text(amount_usd: float | None, rate: CurrencyRate) -> str:
    """``amount_usd`` as money in the answer's currency (USD prints as before)."""
    if amount_usd is None or rate.currency == "USD":
        return money(amount_usd)
    x = amount_usd / rate.usd_per_unit
    return f"{x:,.2f} {rate.currency}" if abs(x) >= 1 else f"{x:.4g} {rate.currency}"


def money(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"${x:,.2f}" if abs(x) >= 1 else f"${x:.4g}"


def desktop_spec(view: CatalogView, out: Answer, gpu: Gpu, count: int) -> dict[str, Any]:
    """A desktop with ``count`` x ``gpu``; its barebone is the engine's default (the cheapest
    of the newest priced year that holds them, a server for a datacenter card), which the
    answer states. SXM modules are priced as an HGX server."""
    if "sxm" in str(gpu.form_factor) and count != HGX_GPUS:
        out.default(
            "desktop.gpu_count",
            HGX_GPUS,
            f"SXM modules are sold on {HGX_GPUS}-GPU HGX boards, not one by one: priced as "
            f"an {HGX_GPUS}-GPU server (asked: {count}); say `{HGX_GPUS}x` or name a card",
        )
        count = HGX_GPUS
    return {"gpu": gpu.id, "gpu_count": count}


def cloud_text(it: Interpretation) -> str:
    """The cloud side as words (``colab colab-pro-plus rtx-5090``), never a Python repr."""
    return " ".join(cloud_words(it).values()) or "that"


def cloud_words(it: Interpretation) -> dict[str, str]:
    c = it.cloud
    words = {"provider": c.provider, "pricing_model": c.pricing_model, "plan": c.colab_plan}
    if c.gpu:
        words["gpu"] = "/".join(c.gpu.ids)
    return {k: v for k, v in words.items() if v}


def dump(result: BaseModel) -> dict[str, Any]:
    return result.model_dump(mode="json")
