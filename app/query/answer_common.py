"""What every chat answer builder shares: the answer being built, refusals, request fields
from an interpretation, money formatting, and the defaults for a desktop and a cloud side
(see :mod:`app.query.answer` for the defaults' sources)."""

from __future__ import annotations

import datetime as dt
import math
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from app.catalog.view import CatalogView
from app.costing import defaults
from app.costing.sourced import Assumed, Caveat, Sourced
from app.errors import NotUnderstood
from app.models.answers import Assumption, CurrencyRate
from app.models.interpretation import GpuMention, Interpretation
from app.models.query import Fact, QueryAnswer
from app.steps import gpu_choice, run_options, trail

if TYPE_CHECKING:
    from app.models import Gpu


M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

SEED_001 = trail.SEED_001


MAX_OPTIONS = run_options.MAX_OPTIONS

EXAMPLES = [
    "break-even for 3090 at 15% util",
    "two 4090s vs lambda h100 at $0.30/kWh for 2 years",
    "4x a6000 vs aws spot v100 in germany, slurm cluster",
    "cost per batch item for stylegan",
    "10 hours on an a100 vs colab pro",
    "carbon of 100 gpu-hours on h100 sxm in CA",
    "cheapest h100 spot",
    "3090 specs",
    "a used 3090 for $700 vs runpod, 20 hours a week",
    "lora llama 3.1 8b on 100M tokens: buy a 4090 or rent?",
    "can I run llama 3.1 70b on two 3090s",
    "plan for 8 students with a budget of $60k",
]


class Answer:
    """Accumulates what the answer needs while a builder runs: its facts, its caveats and its
    ``defaults`` list, which holds three things only: the notes of the steps that chose a
    value (:meth:`take`), the engine's own assumptions (:meth:`assumed`) and how a word of
    the question was read (:meth:`read_as`). Chat chooses nothing itself."""

    def __init__(self, it: Interpretation) -> None:
        self.it = it
        self.defaults: list[Assumption] = []
        self.facts: list[Fact] = []
        self.caveats: list[str] = []
        self.headline_price: tuple[dt.date, str, dt.date] | None = None

    def rests_on(self, day: dt.date, what: str, prices_as_of: dt.date) -> None:
        """The catalog price the headline's figure rests on (an answer listing several
        options names the cheapest's), dated ``day`` and aged against ``prices_as_of`` (the
        view's day): the staleness note reads it instead of the oldest price of the result."""
        self.headline_price = (day, what, prices_as_of)

    def caveat(self, text: str) -> None:
        """Something the answer did differently from what was asked (a GPU the provider
        does not offer, a pricing model dropped): said in the headline."""
        if text not in self.caveats:
            self.caveats.append(text)

    def read_as(self, name: str, value: Any, how: str) -> None:
        """How the question's words were read where they leave a request field open to
        reading (a number as a duration, a task word as a task): ``how`` says what was read
        and how to say otherwise."""
        self.defaults.append(Assumption(name=name, value=value, source=how))

    def assumed(self, assumptions: list[Assumption]) -> None:
        """The engine's assumptions for the answer, as its result states them."""
        self.defaults += assumptions

    def take(self, found: Sourced[T]) -> T:
        """A step's value, its notes kept: each default it chose as one of the answer's
        defaults, each caveat for the headline (citations and prices are the use cases')."""
        for note in found.notes:
            if isinstance(note, Assumed):
                self.defaults.append(
                    Assumption(name=note.name, value=note.value, source=note.source)
                )
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
            headline += dated_note(result, self.headline_price)
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


def dated_note(result: Any, rests_on: tuple[dt.date, str, dt.date] | None = None) -> str:
    """The staleness policy's words for a headline: when the answer rests on a catalog price
    older than :data:`defaults.PRICE_FRESH_DAYS`, its date and age (the warnings list has the
    rest). ``rests_on`` (day, what, the prices' day): the price the headline's figure rests
    on; else the result's oldest price."""
    prices = result.get("prices") if isinstance(result, dict) else getattr(result, "prices", None)
    if isinstance(prices, BaseModel):
        prices = prices.model_dump()
    prices = prices if isinstance(prices, dict) else {}
    day, age = prices.get("oldest_price_date"), prices.get("oldest_price_age_days")
    what = prices.get("oldest_price") or "a catalog price"
    if rests_on is not None:
        day, what, today = rests_on
        age = (today - day).days
    if day is None or age is None or age <= defaults.PRICE_FRESH_DAYS:
        return ""
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


def one_gpu(
    view: CatalogView, out: Answer, mention: GpuMention | None, *, bought: bool = False
) -> Gpu:
    """The GPU a mention names; a family name takes the variant the GPU step chooses
    (:func:`app.steps.gpu_choice.gpu_variant`, at the provider asked about), stated in the
    answer's defaults with the alternatives. Refuses (NotUnderstood) when no GPU is named
    (the parser names one for the intents that need it)."""
    if mention is None or not mention.ids:
        raise refuse(out.it, "name a GPU, e.g. '3090' or 'a100'")
    return out.take(
        gpu_choice.gpu_variant(
            view,
            mention.ids,
            mention.text,
            provider=out.it.cloud.provider,
            bought=bought and not own_price(out.it),
            count=mention.count,
        )
    )


def own_price(it: Interpretation) -> bool:
    """Whether the question gave its own purchase price (a GPU's or the whole box's)."""
    return any(
        getattr(it, n, None) is not None
        for n in ("gpu_price_usd", "gpu_price", "desktop_price_usd", "desktop_price")
    )


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
    return f"{amount(amount_usd / rate.usd_per_unit)} {rate.currency}"


def money(x: float | None) -> str:
    """USD as people write it: ``$1,147.50``, ``$0.50``, ``$0.04026`` ("n/a" for None)."""
    return "n/a" if x is None else f"${amount(x)}"


def runtime_text(seconds: float) -> str:
    """A run's length as people say it: hours from one hour (``134.5 h``), else minutes
    (``6 min``), else seconds (``40 s``)."""
    if seconds >= 3600:
        return f"{seconds / 3600:,.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


def amount(x: float) -> str:
    """An amount of money: cents from 1 up (``1,147.50``); below 1, four significant digits
    and never fewer than two decimals (``0.50``, ``0.4375``, ``0.04026``)."""
    if abs(x) >= 1:
        return f"{x:,.2f}"
    text = f"{x:.4g}"
    return f"{x:.2f}" if "e" not in text and len(text.partition(".")[2]) < 2 else text


def desktop_spec(out: Answer, gpu: Gpu, count: int) -> dict[str, Any]:
    """A desktop with ``count`` x ``gpu`` (SXM modules as a whole HGX board:
    :func:`app.steps.gpu_choice.hgx_count`); its barebone is the engine's default, which
    the answer states."""
    return {"gpu": gpu.id, "gpu_count": out.take(gpu_choice.hgx_count(gpu, count))}


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


def period_text(days: float) -> str:
    """``days`` in the unit it was most likely typed in ("1 week", "3 months", "10 days")."""
    for unit, n in (("year", 365.0), ("month", 365.0 / 12), ("week", 7.0), ("day", 1.0)):
        k = round(days / n)
        if k >= 1 and math.isclose(days, k * n, rel_tol=1e-9):
            return f"{k} {unit}{'s' if k > 1 else ''}"
    return f"{days:,.1f} days"
